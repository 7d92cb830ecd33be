// SPDX-License-Identifier: GPL-2.0
/* What the reports show and how they name it; see view.h. */
#include <string.h>

#include "report/view.h"

bool sleepy_report_app_selected(const struct sleepy_report_options *opts,
				const struct sleepy_app *app)
{
	if (!opts->app_name)
		return true;
	return !strcmp(app->name, opts->app_name) &&
	       (!opts->app_instance || app->instance == opts->app_instance);
}

static const struct sleepy_symbols *
symbols_for(const struct sleepy_report_options *opts,
	    const struct sleepy_app *app)
{
	unsigned int i;

	for (i = 0; i < opts->nsymbols; i++)
		if (!strcmp(opts->symbols[i].app_name, app->name))
			return &opts->symbols[i];
	return NULL;
}

const char *sleepy_report_place(const struct sleepy_report_options *opts,
				struct sleepy_profile *profile,
				const struct sleepy_app *app, uint64_t ip,
				const char **dso, uint64_t *address)
{
	const struct sleepy_symbols *symbols = symbols_for(opts, app);
	const struct sleepy_symbol *sym;
	const struct sleepy_mapping *map;

	if (symbols) {
		*dso = NULL;
		*address = ip;
		sym = sleepy_symbols_find(symbols, ip);
		return sym ? sym->name : NULL;
	}
	map = opts->dsos ? sleepy_profile_mapping(profile, app, ip) : NULL;
	return sleepy_report_mapped_place(opts, map, ip, dso, address);
}

const char *sleepy_report_mapped_place(const struct sleepy_report_options *opts,
				       const struct sleepy_mapping *map,
				       uint64_t ip, const char **dso,
				       uint64_t *address)
{
	const struct sleepy_symbol *sym;

	*dso = NULL;
	*address = ip;
	if (!map)
		return NULL;
	sym = sleepy_dsos_find(opts->dsos, map, ip, dso);
	if (sym)
		return sym->name;
	/* perf's map__map_ip(): where the file holds it. */
	*address = ip - map->start + map->pgoff;
	return NULL;
}

/*
 * The function of @app's user IP @ip: by -s for the application it names,
 * else by the recording's mappings (*@dso then names the file); NULL if
 * unknown.
 */
const char *sleepy_report_function(const struct sleepy_report_options *opts,
				   struct sleepy_profile *profile,
				   const struct sleepy_app *app, uint64_t ip,
				   const char **dso)
{
	uint64_t address;
	const char *function = sleepy_report_place(opts, profile, app, ip, dso,
						   &address);

	if (!function)
		*dso = NULL;
	return function;
}

/*
 * The kernel function at @ip, from the symbols the recording kept, or
 * NULL; *@dso is its module, "[kernel.kallsyms]" (as perf says) if none.
 */
const char *sleepy_report_kernel_function(struct sleepy_profile *profile,
					  uint64_t ip, const char **dso)
{
	const struct sleepy_ksym *sym = NULL;

	if (ip && profile->ksyms.count)
		sym = sleepy_ksyms_find(&profile->ksyms, ip);
	*dso = sym ? sym->module ?: "[kernel.kallsyms]" : NULL;
	return sym ? sym->name : NULL;
}

bool sleepy_report_named_by_s(const struct sleepy_report_options *opts,
			      const struct sleepy_app *app)
{
	return symbols_for(opts, app);
}

/*
 * Not of nothing: a stripped library's internal functions have no symbol,
 * and their samples are still the library's.
 */
const char *sleepy_report_unknown_dso(const struct sleepy_report_options *opts,
				      struct sleepy_profile *profile,
				      const struct sleepy_app *app, uint64_t ip)
{
	const struct sleepy_mapping *map;

	if (!opts->dsos || symbols_for(opts, app))
		return NULL;
	map = sleepy_profile_mapping(profile, app, ip);
	return map ? sleepy_dsos_name(opts->dsos, map) : NULL;
}

