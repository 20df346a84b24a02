/* `rtcosim events --lsbus-node NAME=FMU[,key=value...]`: LS-BUS node FMUs as
 * LPs of the event kernel on the vehicle's CAN bus (src/lsbus/event_node.c),
 * beside the native and firmware ECUs. Keys: tx=ID:DLC (a frame it may
 * send; repeatable; tx=ID:LENGTH:fd or :xl a CAN FD or CAN XL frame),
 * delay=SECONDS (its lookahead to the bus), step=SECONDS (its step grid while it
 * announces no event; 0 none; default its DefaultExperiment stepSize), terminal=NAME,
 * interface=cs|se (co-simulation with Event Mode, or scheduled execution);
 * any other key is a start value of the FMU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events_lsbus.h"
#include "rtcosim/time.h"

static char *next_field(char **p)
{
    char *s = *p;
    if (!s)
        return NULL;
    char *comma = strchr(s, ',');
    if (comma) {
        *comma = '\0';
        *p = comma + 1;
    } else {
        *p = NULL;
    }
    return s;
}

rtcosim_status events_lsbus_parse(events_lsbus *l, const char *spec, rtcosim_error *err)
{
    if (l->count == EVENTS_LSBUS_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: more than %d --lsbus-node options",
                                 EVENTS_LSBUS_MAX);
    events_lsbus_spec *s = &l->specs[l->count];
    memset(s, 0, sizeof *s);
    if (strlen(spec) >= sizeof s->text)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "events: --lsbus-node: too long: '%s'", spec);
    strcpy(s->text, spec);
    char *rest = s->text, *head = next_field(&rest);
    char *eq = strchr(head, '=');
    if (!eq || eq == head || !eq[1])
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "events: --lsbus-node needs NAME=FMU[,key=value...], got '%s'", spec);
    *eq = '\0';
    s->config.name = head;
    s->config.fmu_path = eq + 1;
    s->config.tx_ids = s->tx_ids;
    s->config.tx_dlcs = s->tx_dlcs;
    s->config.tx_formats = s->tx_formats;
    s->config.tx_lengths = s->tx_lengths;
    s->config.start_names = (const char *const *)s->names;
    s->config.start_texts = (const char *const *)s->texts;
    for (char *f; (f = next_field(&rest));) {
        char *v = strchr(f, '=');
        if (!v || v == f)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "events: --lsbus-node %s: '%s' is not key=value", head, f);
        *v++ = '\0';
        if (strcmp(f, "tx") == 0) {
            char *end = NULL;
            unsigned long id = strtoul(v, &end, 0), dlc = 99999;
            uint8_t format = RTCOSIM_CAN_FORMAT_CLASSIC;
            if (end != v && *end == ':')
                dlc = strtoul(end + 1, &end, 10);
            if (strcmp(end, ":fd") == 0 || strcmp(end, ":xl") == 0) {
                format = end[1] == 'f' ? RTCOSIM_CAN_FORMAT_FD : RTCOSIM_CAN_FORMAT_XL;
                end += 3;
            }
            unsigned long max = format == RTCOSIM_CAN_FORMAT_CLASSIC ? 8
                                : format == RTCOSIM_CAN_FORMAT_FD    ? 64
                                                                     : RTCOSIM_CAN_XL_DATA_MAX;
            if (*end || dlc > max || id > RTCOSIM_CAN_EXT_ID_MAX || s->config.tx_count == 16)
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "events: --lsbus-node %s: tx needs ID:DLC (DLC 0..8, "
                                         "at most 16) or ID:LENGTH:fd (0..64) or ID:LENGTH:xl "
                                         "(1..2048), got '%s'", head, v);
            s->tx_ids[s->config.tx_count] = (uint32_t)id;
            s->tx_formats[s->config.tx_count] = format;
            s->tx_lengths[s->config.tx_count] = (uint16_t)dlc;
            s->tx_dlcs[s->config.tx_count++] = (uint8_t)(dlc > 8 ? 8 : dlc);
        } else if (strcmp(f, "delay") == 0 || strcmp(f, "step") == 0) {
            rtcosim_time_ns *t = f[0] == 'd' ? &s->config.tx_delay : &s->config.step;
            if (rtcosim_time_parse_seconds(v, t, err) != RTCOSIM_OK || *t < 0)
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "events: --lsbus-node %s: %s needs seconds >= 0, got "
                                         "'%s'", head, f, v);
            if (f[0] == 's' && s->config.step == 0)
                s->config.step = -1; /* step=0: only at its events and frames */
        } else if (strcmp(f, "terminal") == 0) {
            s->config.terminal = v;
        } else if (strcmp(f, "interface") == 0) {
            if (strcmp(v, "se") != 0 && strcmp(v, "cs") != 0)
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "events: --lsbus-node %s: interface is cs (co-simulation "
                                         "with Event Mode, the default) or se (scheduled "
                                         "execution), got '%s'", head, v);
            s->config.scheduled_execution = strcmp(v, "se") == 0;
        } else {
            if (s->config.start_count == EVENTS_LSBUS_STARTS)
                return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                         "events: --lsbus-node %s: more than %d start values",
                                         head, EVENTS_LSBUS_STARTS);
            s->names[s->config.start_count] = f;
            s->texts[s->config.start_count++] = v;
        }
    }
    if (s->config.tx_count == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "events: --lsbus-node %s: give the frames it sends as tx=ID:DLC "
                                 "(the bus's TX database)", head);
    l->count++;
    return RTCOSIM_OK;
}

rtcosim_status events_lsbus_attach(rtcosim_events *sim, rtcosim_can_bus *bus, void *context,
                                   rtcosim_error *err)
{
    events_lsbus *l = context;
    for (int i = 0; i < l->count; i++) {
        l->specs[i].config.start = l->start;
        l->specs[i].config.stop = l->stop;
        rtcosim_status st =
            rtcosim_lsbus_event_node_create(sim, bus, &l->specs[i].config, &l->nodes[i], err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

void events_lsbus_print(const events_lsbus *l)
{
    for (int i = 0; i < l->count; i++) {
        uint64_t tx = 0, rx = 0;
        if (!l->nodes[i])
            continue;
        rtcosim_lsbus_event_node_counts(l->nodes[i], &tx, &rx);
        printf("lsbus node %-9s frames tx %llu rx %llu, bus errors %llu (%s)\n",
               rtcosim_lsbus_event_node_name(l->nodes[i]), (unsigned long long)tx,
               (unsigned long long)rx,
               (unsigned long long)rtcosim_lsbus_event_node_bus_errors(l->nodes[i]),
               l->specs[i].config.fmu_path);
    }
}

void events_lsbus_free(events_lsbus *l)
{
    for (int i = 0; i < l->count; i++) {
        rtcosim_lsbus_event_node_free(l->nodes[i]);
        l->nodes[i] = NULL;
    }
}
