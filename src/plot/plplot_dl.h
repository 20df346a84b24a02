/* PLplot loaded when the first plot is drawn, not at every start of
 * `rtcosim` (util/lazy_lib.h): with FreeType, libpng, Qhull and its other
 * libraries it cost about 1 ms of dynamic linking per process (an empty
 * program linked with -lplplot started in 1.45 ms of CPU against 0.5 ms).
 * Include this after <plplot.h>: its pl* names (macros for c_pl*) then call
 * through the loaded table, which rtcosim_plplot_load must have filled. */
#ifndef RTCOSIM_PLOT_PLPLOT_DL_H
#define RTCOSIM_PLOT_PLPLOT_DL_H

#include <plplot.h>

#include "rtcosim/status.h"

typedef struct rtcosim_plplot_api {
    __typeof__(c_pladv) *f_c_pladv;
    __typeof__(c_plcol0) *f_c_plcol0;
    __typeof__(c_plend) *f_c_plend;
    __typeof__(c_plfill) *f_c_plfill;
    __typeof__(plgDevs) *f_plgDevs;
    __typeof__(c_plinit) *f_c_plinit;
    __typeof__(c_pljoin) *f_c_pljoin;
    __typeof__(c_plline) *f_c_plline;
    __typeof__(c_pllsty) *f_c_pllsty;
    __typeof__(c_plpoin) *f_c_plpoin;
    __typeof__(c_plptex) *f_c_plptex;
    __typeof__(plsabort) *f_plsabort;
    __typeof__(c_plschr) *f_c_plschr;
    __typeof__(c_plscmap0n) *f_c_plscmap0n;
    __typeof__(c_plscol0) *f_c_plscol0;
    __typeof__(c_plscolbg) *f_c_plscolbg;
    __typeof__(c_plsdev) *f_c_plsdev;
    __typeof__(c_plsfnam) *f_c_plsfnam;
    __typeof__(plsfile) *f_plsfile;
    __typeof__(c_plspage) *f_c_plspage;
    __typeof__(c_plssym) *f_c_plssym;
    __typeof__(c_plvpor) *f_c_plvpor;
    __typeof__(c_plwidth) *f_c_plwidth;
    __typeof__(c_plwind) *f_c_plwind;
} rtcosim_plplot_api;

extern rtcosim_plplot_api rtcosim_plplot;

/* Loads PLplot once (thread-safe); an error naming the library when it is
 * missing. */
rtcosim_status rtcosim_plplot_load(rtcosim_error *err);

#define c_pladv (*rtcosim_plplot.f_c_pladv)
#define c_plcol0 (*rtcosim_plplot.f_c_plcol0)
#define c_plend (*rtcosim_plplot.f_c_plend)
#define c_plfill (*rtcosim_plplot.f_c_plfill)
#define plgDevs (*rtcosim_plplot.f_plgDevs)
#define c_plinit (*rtcosim_plplot.f_c_plinit)
#define c_pljoin (*rtcosim_plplot.f_c_pljoin)
#define c_plline (*rtcosim_plplot.f_c_plline)
#define c_pllsty (*rtcosim_plplot.f_c_pllsty)
#define c_plpoin (*rtcosim_plplot.f_c_plpoin)
#define c_plptex (*rtcosim_plplot.f_c_plptex)
#define plsabort (*rtcosim_plplot.f_plsabort)
#define c_plschr (*rtcosim_plplot.f_c_plschr)
#define c_plscmap0n (*rtcosim_plplot.f_c_plscmap0n)
#define c_plscol0 (*rtcosim_plplot.f_c_plscol0)
#define c_plscolbg (*rtcosim_plplot.f_c_plscolbg)
#define c_plsdev (*rtcosim_plplot.f_c_plsdev)
#define c_plsfnam (*rtcosim_plplot.f_c_plsfnam)
#define plsfile (*rtcosim_plplot.f_plsfile)
#define c_plspage (*rtcosim_plplot.f_c_plspage)
#define c_plssym (*rtcosim_plplot.f_c_plssym)
#define c_plvpor (*rtcosim_plplot.f_c_plvpor)
#define c_plwidth (*rtcosim_plplot.f_c_plwidth)
#define c_plwind (*rtcosim_plplot.f_c_plwind)

#endif
