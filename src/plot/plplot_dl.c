/* PLplot on first use (plplot_dl.h says why). */
#include <plplot.h>

#include "plot/plplot_dl.h"
#include "util/lazy_lib.h"

#ifndef RTCOSIM_PLPLOT_SONAME
#define RTCOSIM_PLPLOT_SONAME "libplplot.so.17"
#endif

rtcosim_plplot_api rtcosim_plplot;

static const util_lazy_symbol symbols[] = {
    {(void **)&rtcosim_plplot.f_c_pladv, "c_pladv"},
    {(void **)&rtcosim_plplot.f_c_plcol0, "c_plcol0"},
    {(void **)&rtcosim_plplot.f_c_plend, "c_plend"},
    {(void **)&rtcosim_plplot.f_c_plfill, "c_plfill"},
    {(void **)&rtcosim_plplot.f_plgDevs, "plgDevs"},
    {(void **)&rtcosim_plplot.f_c_plinit, "c_plinit"},
    {(void **)&rtcosim_plplot.f_c_pljoin, "c_pljoin"},
    {(void **)&rtcosim_plplot.f_c_plline, "c_plline"},
    {(void **)&rtcosim_plplot.f_c_pllsty, "c_pllsty"},
    {(void **)&rtcosim_plplot.f_c_plpoin, "c_plpoin"},
    {(void **)&rtcosim_plplot.f_c_plptex, "c_plptex"},
    {(void **)&rtcosim_plplot.f_plsabort, "plsabort"},
    {(void **)&rtcosim_plplot.f_c_plschr, "c_plschr"},
    {(void **)&rtcosim_plplot.f_c_plscmap0n, "c_plscmap0n"},
    {(void **)&rtcosim_plplot.f_c_plscol0, "c_plscol0"},
    {(void **)&rtcosim_plplot.f_c_plscolbg, "c_plscolbg"},
    {(void **)&rtcosim_plplot.f_c_plsdev, "c_plsdev"},
    {(void **)&rtcosim_plplot.f_c_plsfnam, "c_plsfnam"},
    {(void **)&rtcosim_plplot.f_plsfile, "plsfile"},
    {(void **)&rtcosim_plplot.f_c_plspage, "c_plspage"},
    {(void **)&rtcosim_plplot.f_c_plssym, "c_plssym"},
    {(void **)&rtcosim_plplot.f_c_plvpor, "c_plvpor"},
    {(void **)&rtcosim_plplot.f_c_plwidth, "c_plwidth"},
    {(void **)&rtcosim_plplot.f_c_plwind, "c_plwind"},
};

static util_lazy_lib plplot = {.soname = RTCOSIM_PLPLOT_SONAME, .purpose = "for plots",
                               .symbols = symbols, .count = sizeof symbols / sizeof symbols[0],
                               .lock = PTHREAD_MUTEX_INITIALIZER};

rtcosim_status rtcosim_plplot_load(rtcosim_error *err) { return util_lazy_lib_load(&plplot, err); }
