/* Software in the loop: ECU code compiled for the host as a shared object
 * (contract: include/rtcosim/ecu_so.h) as the software of an ECU emulator,
 * with its state captured without save/restore code of its own. Each ECU
 * loads a private copy of the file (dlopen shares one mapping, and so one set
 * of variables, per file), whose writable data sections (.data, .bss; not
 * the GOT nor what RELRO protects: ecu_so_elf.c) become the ECU's software
 * ranges, copied by the emulator's snapshots like its own state. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/elf_check.h"
#include "ecu_internal.h"
#include "ecu_so_elf.h"
#include "rtcosim/ecu_so.h"
#include "rtcosim/log.h"

#define ECU_SO_MAX_BYTES (256u << 20)

typedef void (*so_task_fn)(const rtcosim_ecu_so_io *io);
typedef void (*so_isr_fn)(const rtcosim_ecu_so_io *io, uint32_t id, const uint8_t *data,
                          unsigned dlc);

const char *ecu_so_path(const ecu_so *so) { return so->path; }

void *ecu_so_entry(const ecu_so *so, const char *symbol)
{
    return so && symbol && *symbol ? dlsym(so->handle, symbol) : NULL;
}

bool ecu_so_capturable(const ecu_so *so, const char **reason)
{
    if (!so->outside_state[0])
        return true;
    if (reason)
        *reason = so->reason;
    return false;
}

void ecu_so_run_init(ecu_so *so)
{
    if (so->init)
        so->init();
}

void ecu_so_close(ecu_so *so)
{
    if (!so)
        return;
    if (so->handle)
        dlclose(so->handle);
    free(so->ranges);
    free(so->start_image);
    free(so->path);
    free(so);
}

static rtcosim_status read_whole(const char *path, unsigned char **bytes, size_t *size,
                                 rtcosim_error *err)
{
    *bytes = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        rtcosim_status s = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot open: %s", path,
                                             strerror(errno));
        if (fd >= 0)
            close(fd);
        return s;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > (off_t)ECU_SO_MAX_BYTES) {
        close(fd);
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: not a regular file of at most %u MiB",
                                 path, ECU_SO_MAX_BYTES >> 20);
    }
    *size = (size_t)st.st_size;
    *bytes = malloc(*size ? *size : 1);
    size_t done = 0;
    while (*bytes && done < *size) {
        ssize_t n = read(fd, *bytes + done, *size - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    close(fd);
    if (!*bytes)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    if (done != *size)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: read error", path);
    return RTCOSIM_OK;
}

/* dlopen a private copy: written to a fresh directory, loaded, removed at
 * once (the mapping stays), so that nothing is left behind. */
static rtcosim_status load_copy(ecu_so *so, const unsigned char *bytes, size_t size,
                                rtcosim_error *err)
{
    const char *tmp = getenv("TMPDIR");
    char dir[512], file[600];
    snprintf(dir, sizeof dir, "%s/rtcosim-so-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot make a directory for its copy"
                                 " in %s: %s", so->path, tmp && *tmp ? tmp : "/tmp",
                                 strerror(errno));
    const char *base = strrchr(so->path, '/');
    snprintf(file, sizeof file, "%s/%s", dir, base ? base + 1 : so->path);
    int fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
    bool written = fd >= 0;
    for (size_t done = 0; written && done < size;) {
        ssize_t n = write(fd, bytes + done, size - done);
        written = n > 0;
        done += written ? (size_t)n : 0;
    }
    if (fd >= 0 && close(fd) != 0)
        written = false;
    rtcosim_status st = RTCOSIM_OK;
    if (!written) {
        st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot write its copy %s: %s", so->path,
                               file, strerror(errno));
    } else if ((st = util_elf_check_loadable(file, so->path, err)) == RTCOSIM_OK) {
        /* RTLD_NOW: every import bound here, none on the run's threads */
        so->handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
        if (!so->handle) {
            const char *why = dlerror();
            size_t n = strlen(file);
            /* dlerror names the copy: name the user's file instead */
            if (why && strncmp(why, file, n) == 0 && why[n] == ':')
                why += n + 1 + (why[n + 1] == ' ');
            st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: cannot be loaded: %s", so->path,
                                   why ? why : "unknown dlopen error");
        }
    }
    unlink(file);
    rmdir(dir);
    return st;
}

/* The loaded object's writable PT_LOAD segments, to check the ranges against. */
typedef struct segments {
    uintptr_t base;
    size_t count;
    struct {
        uintptr_t start, end;
    } writable[16];
    uintptr_t low, high; /* the extent of all its PT_LOAD segments */
    bool found;
} segments;

static int find_segments(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    segments *s = data;
    if (info->dlpi_addr != s->base)
        return 0;
    s->found = true;
    for (unsigned i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (!s->high || start < s->low))
            s->low = start;
        if (ph->p_type == PT_LOAD && end > s->high)
            s->high = end;
    }
    for (unsigned i = 0; i < info->dlpi_phnum && s->count < 16; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W)) {
            s->writable[s->count].start = info->dlpi_addr + ph->p_vaddr;
            s->writable[s->count].end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
            s->count++;
        }
    }
    return 1;
}

/* The object's writable data as ranges of this process (checked against its
 * loaded writable segments) and their start image, taken after its
 * constructors ran. */
static rtcosim_status find_ranges(ecu_so *so, const ecu_so_layout *layout, rtcosim_error *err)
{
    const char *path = so->path;
    struct link_map *map = NULL;
    if (dlinfo(so->handle, RTLD_DI_LINKMAP, &map) != 0 || !map)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: no link map after loading", path);
    segments seg = {.base = (uintptr_t)map->l_addr};
    dl_iterate_phdr(find_segments, &seg);
    so->ranges = calloc(layout->range_count ? layout->range_count : 1, sizeof *so->ranges);
    if (!so->ranges)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    size_t total = 0;
    for (size_t i = 0; i < layout->range_count; i++) {
        uintptr_t start = seg.base + (uintptr_t)layout->ranges[i].address;
        uintptr_t end = start + (uintptr_t)layout->ranges[i].size;
        bool inside = false;
        for (size_t k = 0; k < seg.count && !inside; k++)
            inside = start >= seg.writable[k].start && end <= seg.writable[k].end;
        if (!inside)
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: writable data at 0x%llx (%llu"
                                     " bytes) lies outside its loaded writable segments", path,
                                     (unsigned long long)layout->ranges[i].address,
                                     (unsigned long long)layout->ranges[i].size);
        so->ranges[i] = (ecu_range){(unsigned char *)start, (size_t)layout->ranges[i].size};
        total += (size_t)layout->ranges[i].size;
    }
    so->range_count = layout->range_count;
    so->size = total;
    so->base = seg.base;
    so->low = seg.low - seg.base;
    so->high = seg.high - seg.base;
    so->start_image = malloc(total ? total : 1);
    if (!so->start_image)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    ecu_so_gather(so, so->start_image);
    return RTCOSIM_OK;
}

rtcosim_status ecu_so_load(const char *path, const char *owner, ecu_so **out,
                           rtcosim_error *err)
{
    *out = NULL;
    ecu_so *so = calloc(1, sizeof *so);
    if (!so || !(so->path = strdup(path))) {
        free(so);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    }
    unsigned char *bytes;
    size_t size = 0;
    ecu_so_layout layout;
    rtcosim_status st = read_whole(path, &bytes, &size, err);
    if (st == RTCOSIM_OK)
        st = ecu_so_elf_scan(bytes, size, path, &layout, err);
    if (st == RTCOSIM_OK && layout.tls)
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: has thread-local variables, whose state"
                               " is per thread and cannot be captured (keep it in .data/.bss)",
                               path);
    if (st == RTCOSIM_OK)
        st = load_copy(so, bytes, size, err);
    free(bytes);
    if (st == RTCOSIM_OK)
        st = find_ranges(so, &layout, err);
    if (st != RTCOSIM_OK) {
        ecu_so_close(so);
        return st;
    }
    *(void **)&so->init = dlsym(so->handle, "ecu_init");
    if (layout.outside_state[0]) {
        snprintf(so->outside_state, sizeof so->outside_state, "%s", layout.outside_state);
        snprintf(so->reason, sizeof so->reason, "%s imports %s, whose state lies outside its"
                 " data", path, layout.outside_state);
        rtcosim_log(RTCOSIM_LOG_WARNING, "ecu", "%s: %s imports %s, whose state lies"
                    " outside the object's data: its state cannot be captured, so it is never"
                    " speculated on (it runs conservatively)", owner, path,
                    layout.outside_state);
    }
    *out = so;
    return RTCOSIM_OK;
}

rtcosim_status ecu_so_open(rtcosim_ecu *ecu, const char *path, rtcosim_error *err)
{
    char owner[160];
    snprintf(owner, sizeof owner, "ecu '%s'", ecu->name);
    rtcosim_status st = ecu_so_load(path, owner, &ecu->so, err);
    if (st != RTCOSIM_OK)
        return st;
    ecu_so *so = ecu->so;
    ecu->ranges = malloc((so->range_count ? so->range_count : 1) * sizeof *ecu->ranges);
    ecu->software_init = malloc(so->size ? so->size : 1);
    if (!ecu->ranges || !ecu->software_init)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
    memcpy(ecu->ranges, so->ranges, so->range_count * sizeof *ecu->ranges);
    memcpy(ecu->software_init, so->start_image, so->size);
    ecu->range_count = so->range_count;
    ecu->config.software_size = so->size;
    return RTCOSIM_OK;
}

void ecu_so_rebase(const ecu_so *so, unsigned char *data, uintptr_t from_base)
{
    if (from_base == so->base)
        return;
    for (size_t i = 0; i < so->range_count; data += so->ranges[i].size, i++) {
        uintptr_t at = (uintptr_t)so->ranges[i].address;
        size_t first = (size_t)((sizeof(uintptr_t) - at % sizeof(uintptr_t)) %
                                sizeof(uintptr_t));
        for (size_t k = first; k + sizeof(uintptr_t) <= so->ranges[i].size;
             k += sizeof(uintptr_t)) {
            uintptr_t word;
            memcpy(&word, data + k, sizeof word);
            if (word >= from_base + so->low && word < from_base + so->high) {
                word = word - from_base + so->base;
                memcpy(data + k, &word, sizeof word);
            }
        }
    }
}

/* ---- entry points and the I/O table they get ---- */

static void *entry_point(rtcosim_ecu *ecu, const char *symbol, rtcosim_error *err)
{
    if (!ecu->so) {
        rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': entry point '%s' named, but the ECU"
                          " has no shared object", ecu->name, symbol ? symbol : "?");
        return NULL;
    }
    void *code = ecu_so_entry(ecu->so, symbol);
    if (!code)
        rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "ecu '%s': %s: no entry point '%s' (an"
                          " exported function, see rtcosim/ecu_so.h)", ecu->name, ecu->so->path,
                          symbol ? symbol : "");
    return code;
}

static double io_now(const rtcosim_ecu_so_io *io)
{
    return rtcosim_time_to_seconds(rtcosim_ecu_io_now(io->context));
}

static double io_sensor(const rtcosim_ecu_so_io *io, unsigned index)
{
    return rtcosim_ecu_io_sensor(io->context, index);
}

static void io_actuate(const rtcosim_ecu_so_io *io, unsigned index, double value)
{
    rtcosim_ecu_io_actuate(io->context, index, value);
}

static int io_can_read(const rtcosim_ecu_so_io *io, uint32_t id, uint8_t data[8])
{
    rtcosim_can_frame f;
    if (!rtcosim_ecu_io_can_read(io->context, id & ~RTCOSIM_ECU_SO_EXTENDED,
                                 (id & RTCOSIM_ECU_SO_EXTENDED) != 0, &f))
        return -1;
    memcpy(data, f.data, f.dlc <= 8 ? f.dlc : 8);
    return f.dlc;
}

static int io_can_send(const rtcosim_ecu_so_io *io, uint32_t id, const uint8_t *data,
                       unsigned dlc)
{
    rtcosim_ecu_io *job = io->context;
    rtcosim_error scratch;
    rtcosim_status st = rtcosim_ecu_io_can_send(job, id & ~RTCOSIM_ECU_SO_EXTENDED,
                                                (id & RTCOSIM_ECU_SO_EXTENDED) != 0, data,
                                                dlc > 255 ? 255 : (uint8_t)dlc,
                                                job->status == RTCOSIM_OK ? job->err : &scratch);
    if (st != RTCOSIM_OK && job->status == RTCOSIM_OK)
        job->status = st; /* the job fails with the reason */
    return st == RTCOSIM_OK ? 0 : -1;
}

static void io_set_cycles(const rtcosim_ecu_so_io *io, uint64_t cycles)
{
    rtcosim_ecu_io_set_cycles(io->context, cycles);
}

static rtcosim_ecu_so_io io_of(rtcosim_ecu_io *job)
{
    return (rtcosim_ecu_so_io){.version = RTCOSIM_ECU_SO_VERSION, .context = job,
                               .now = io_now, .sensor = io_sensor, .actuate = io_actuate,
                               .can_read = io_can_read, .can_send = io_can_send,
                               .set_cycles = io_set_cycles};
}

static rtcosim_status so_task(rtcosim_ecu_io *job, void *software, rtcosim_error *err)
{
    (void)software, (void)err;
    const rtcosim_ecu_so_io io = io_of(job);
    so_task_fn fn;
    *(void **)&fn = job->code;
    fn(&io);
    return RTCOSIM_OK; /* errors of the I/O calls: job->status */
}

static rtcosim_status so_isr(rtcosim_ecu_io *job, void *software, const rtcosim_can_frame *f,
                             rtcosim_error *err)
{
    (void)software, (void)err;
    const rtcosim_ecu_so_io io = io_of(job);
    so_isr_fn fn;
    *(void **)&fn = job->code;
    fn(&io, f->id | (f->extended ? RTCOSIM_ECU_SO_EXTENDED : 0), f->data, f->dlc);
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_ecu_add_task_symbol(rtcosim_ecu *ecu, const char *name,
                                           rtcosim_time_ns period, rtcosim_time_ns offset,
                                           uint64_t cycles, int priority, const char *symbol,
                                           rtcosim_error *err)
{
    void *code = entry_point(ecu, symbol, err);
    if (!code)
        return err ? err->status : RTCOSIM_ENOTFOUND;
    return ecu_add_task(ecu, name, period, offset, cycles, priority, so_task, code, err);
}

rtcosim_status rtcosim_ecu_add_can_rx_symbol(rtcosim_ecu *ecu, uint32_t id, bool extended,
                                             uint64_t cycles, const char *symbol,
                                             rtcosim_error *err)
{
    void *code = entry_point(ecu, symbol, err);
    if (!code)
        return err ? err->status : RTCOSIM_ENOTFOUND;
    return ecu_add_can_rx(ecu, id, extended, cycles, so_isr, code, err);
}

void *rtcosim_ecu_so_symbol(rtcosim_ecu *ecu, const char *symbol)
{
    return ecu_so_entry(ecu->so, symbol);
}

rtcosim_status rtcosim_ecu_so_set(rtcosim_ecu *ecu, const char *symbol, const void *value,
                                  size_t size, rtcosim_error *err)
{
    unsigned char *at = rtcosim_ecu_so_symbol(ecu, symbol);
    if (!at)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "ecu '%s': %s exports no variable '%s'",
                                 ecu->name, ecu->so ? ecu->so->path : "(no shared object)",
                                 symbol ? symbol : "");
    size_t offset = 0;
    for (size_t i = 0; i < ecu->range_count; offset += ecu->ranges[i].size, i++) {
        const ecu_range *r = &ecu->ranges[i];
        if (at >= r->address && size <= r->size && (size_t)(at - r->address) <= r->size - size) {
            memcpy(at, value, size);
            memcpy((unsigned char *)ecu->software_init + offset + (size_t)(at - r->address),
                   value, size);
            return RTCOSIM_OK;
        }
    }
    return rtcosim_error_set(err, RTCOSIM_EINVAL, "ecu '%s': %s: '%s' (%zu bytes) is not inside"
                             " its writable data", ecu->name, ecu->so->path, symbol, size);
}
