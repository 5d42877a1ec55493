/* trend_page.h: the fixed parts of the page `tare trend` writes (see trend_page.c). */
#ifndef TARE_TREND_PAGE_H
#define TARE_TREND_PAGE_H

/* The page's style sheet, its markup before the data, and its script (which reads the data
 * from the <script type="application/json" id="trend-data"> block and draws the charts). */
extern const char trend_page_css[];
extern const char trend_page_body[];
extern const char trend_page_js[];

#endif
