/* commands.h: one line per command: its entry point and usage (the man page SYNOPSIS). */
#ifndef TARE_COMMANDS_H
#define TARE_COMMANDS_H

int cmd_wall(int argc, char **argv);
extern const char cmd_wall_usage[];
int cmd_stat(int argc, char **argv);
extern const char cmd_stat_usage[];

int cmd_count(int argc, char **argv);
extern const char cmd_count_usage[];
int cmd_alloc(int argc, char **argv);
extern const char cmd_alloc_usage[];
int cmd_cg(int argc, char **argv);
extern const char cmd_cg_usage[];

int cmd_selftest(int argc, char **argv);
extern const char cmd_selftest_usage[];
int cmd_history(int argc, char **argv);
extern const char cmd_history_usage[];
int cmd_report(int argc, char **argv);
extern const char cmd_report_usage[];
int cmd_trend(int argc, char **argv);
extern const char cmd_trend_usage[];
int cmd_run(int argc, char **argv);
extern const char cmd_run_usage[];
int cmd_ab(int argc, char **argv);
extern const char cmd_ab_usage[];
int cmd_goal(int argc, char **argv);
extern const char cmd_goal_usage[];
int cmd_bisect(int argc, char **argv);
extern const char cmd_bisect_usage[];

#endif
