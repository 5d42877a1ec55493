/* commands.h: one line per command: its entry point and usage (the man page SYNOPSIS). */
#ifndef TARE_COMMANDS_H
#define TARE_COMMANDS_H

int cmd_wall(int argc, char **argv);
extern const char cmd_wall_usage[];
int cmd_ab(int argc, char **argv);
extern const char cmd_ab_usage[];
int cmd_goal(int argc, char **argv);
extern const char cmd_goal_usage[];

#endif
