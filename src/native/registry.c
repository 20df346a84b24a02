/* The registry of native model types by name, so that a system description
 * can name a native component by the source URI "rtcosim:<name>". Built-in
 * models register themselves when the library loads (RTCOSIM_NATIVE_BUILTIN);
 * applications may add their own. Registration is rare: a mutex suffices. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/native.h"

#define REGISTRY_MAX 256
#define NAME_MAX_LEN 128
#define URI_SCHEME "rtcosim:"

typedef struct registry_entry {
    char name[NAME_MAX_LEN];
    rtcosim_native_factory factory;
    void *context;
} registry_entry;

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static registry_entry registry[REGISTRY_MAX];
static size_t registry_count;

static const char *strip_scheme(const char *name)
{
    size_t n = strlen(URI_SCHEME);
    return strncmp(name, URI_SCHEME, n) == 0 ? name + n : name;
}

static registry_entry *find_locked(const char *name)
{
    for (size_t i = 0; i < registry_count; i++)
        if (strcmp(registry[i].name, name) == 0)
            return &registry[i];
    return NULL;
}

rtcosim_status rtcosim_native_register(const char *name, rtcosim_native_factory factory,
                                       void *context, rtcosim_error *err)
{
    if (!name || !factory)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "native registry: name and factory are required");
    name = strip_scheme(name);
    if (!*name || strlen(name) >= NAME_MAX_LEN)
        return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                 "native registry: name '%s' is empty or longer than %d characters",
                                 name, NAME_MAX_LEN - 1);
    rtcosim_status st = RTCOSIM_OK;
    pthread_mutex_lock(&registry_lock);
    if (find_locked(name))
        st = rtcosim_error_set(err, RTCOSIM_EINVAL, "native registry: '%s' is already registered",
                               name);
    else if (registry_count == REGISTRY_MAX)
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "native registry: full (%d types)", REGISTRY_MAX);
    else {
        registry_entry *e = &registry[registry_count++];
        strcpy(e->name, name);
        e->factory = factory;
        e->context = context;
    }
    pthread_mutex_unlock(&registry_lock);
    return st;
}

static rtcosim_status model_factory(void *context, rtcosim_component **out, rtcosim_error *err)
{
    return rtcosim_native_create_model(context, out, err);
}

rtcosim_status rtcosim_native_register_model(const rtcosim_native_model *model, rtcosim_error *err)
{
    if (!model || !model->name)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "native registry: model without a name");
    /* The cast drops const only to pass the descriptor through the factory's
     * context; model_factory treats it as const again. */
    return rtcosim_native_register(model->name, model_factory, (void *)model, err);
}

rtcosim_status rtcosim_native_create(const char *name, rtcosim_component **out, rtcosim_error *err)
{
    *out = NULL;
    if (!name)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "native registry: no model name given");
    const char *key = strip_scheme(name);
    pthread_mutex_lock(&registry_lock);
    registry_entry *e = find_locked(key);
    registry_entry copy;
    if (e)
        copy = *e;
    pthread_mutex_unlock(&registry_lock);
    if (!e)
        return rtcosim_error_set(err, RTCOSIM_ENOTFOUND, "%s: no native model of this name is registered",
                                 name);
    return copy.factory(copy.context, out, err);
}

size_t rtcosim_native_registered_count(void)
{
    pthread_mutex_lock(&registry_lock);
    size_t n = registry_count;
    pthread_mutex_unlock(&registry_lock);
    return n;
}

const char *rtcosim_native_registered_name(size_t index)
{
    pthread_mutex_lock(&registry_lock);
    const char *name = index < registry_count ? registry[index].name : NULL;
    pthread_mutex_unlock(&registry_lock);
    return name;
}
