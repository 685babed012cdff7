/*
 * webkit-view: load pages in a real WebKitGTK web view, with or without a
 * Safari/WebKit content-blocker rule list, through a logging proxy, and print
 * one JSON line per page with the report the page computed by script.
 *
 * Part of BlockBench (Benchmarks/Peers/WebKit). Build with ./build.sh; normally run
 * by ./webkit-view-run, which starts view_server.py (the proxy) and this
 * tool inside a network namespace that only has loopback, under xvfb-run.
 *
 * Usage:
 *   webkit-view --pages PAGES.jsonl --proxy http://127.0.0.1:P --control P2
 *               [--rules FILE] [--cookie-hosts FILE] [--store DIR]
 *               [--settle-ms 1500] [--page-timeout-ms 10000] [--drain-ms 100]
 *               [--cache-model document-viewer|web-browser] [--between blank|none]
 *
 * PAGES.jsonl: one {"url": "<absolute URL>", "html": "..."} object a line
 * (only "url" is read here; the proxy serves the html).  Blank lines skipped.
 *
 * For each page i, in file order:
 *   1. send "page i\n" on the control connection (TCP 127.0.0.1:P2) and wait
 *      for "ok", so the proxy attributes the requests that follow to page i;
 *   2. load the URL; wait for the load to finish or fail, or the page timeout;
 *   3. if it loaded, poll `window.bbDone === true` every 25 ms until true or
 *      --settle-ms has passed (pages set bbDone once their own asynchronous
 *      requests have settled);
 *   4. evaluate JSON.stringify(bbReport()) (null without a bbReport);
 *   5. with --between blank (the default), load about:blank and wait for it;
 *      then keep running for --drain-ms, so that requests made while the page
 *      unloads (pagehide/unload beacons reach the proxy a few ms after
 *      about:blank has finished) are still attributed to page i; then print
 *      the page line.  With --between none the next page navigates straight
 *      from this one, as a user's next page does: WebKit evaluates the
 *      frame-url conditions of a navigation against the document it leaves.
 * After the last page "quit\n" goes to the control connection.
 *
 * Output (stdout, one line per page, flushed after each line):
 *   {"page":i, "url":"...", "loaded":true|false, "error":"..."|null,
 *    "report":<bbReport() value>|null, "bbDone":true|false,
 *    "loadMs":N, "settleMs":N, "totalMs":N}
 * loadMs: load_uri to load finished/failed; settleMs: the bbDone wait;
 * totalMs: the whole page including the about:blank and drain that follow.
 *
 * --cache-model: document-viewer (the default) has no memory cache, so a
 * script the preload scanner fetched is fetched again by the parser (two
 * requests for one <script src>); web-browser reuses the preloaded copy.
 *
 * With --rules the list is compiled by WebKitUserContentFilterStore (as in
 * webkit-compile) into --store or a fresh folder under $TMPDIR and added to
 * the view.  A list WebKit rejects: the error on stderr, the line
 * {"compileError":"..."} on stdout, exit status 4.
 *
 * Before the first page a session cookie bb=1 (path /, SameSite=None, not
 * Secure, not HttpOnly, host-only) is set for every host listed in
 * --cookie-hosts (one host a line).
 *
 * Exit status: 0 when every page has its line (loads that fail are data, not
 * failures), 2 for bad arguments, 4 for a rule list WebKit rejects, 1 for
 * any other failure, 5 when the main loop stops making progress (a watchdog
 * thread ends the process rather than let it hang).
 */

#include <webkit2/webkit2.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define POLL_MS 25
#define JS_TIMEOUT_MS 3000
#define BLANK_TIMEOUT_MS 5000
#define CONTROL_TIMEOUT_S 10
#define STALL_LIMIT_S 60

#include "json-text.h"


static void emit(GString *line)
{
    g_string_append_c(line, '\n');
    fwrite(line->str, 1, line->len, stdout);
    fflush(stdout);
}

static long ms_since(gint64 start_us)
{
    return (long)((g_get_monotonic_time() - start_us) / 1000);
}


/* ------------------------------------------------------------------------ */
/* Main-loop waiting.  A 10 ms heartbeat source keeps every iteration short,
 * so each wait below is bounded by its own deadline.                        */

static volatile gint64 g_last_progress_us;

static gboolean heartbeat(gpointer data)
{
    g_last_progress_us = g_get_monotonic_time();
    return G_SOURCE_CONTINUE;
}

/* Runs the main loop until *flag is set or deadline_us; returns *flag. */
static gboolean run_until(const gboolean *flag, gint64 deadline_us)
{
    while (!*flag && g_get_monotonic_time() < deadline_us)
        g_main_context_iteration(NULL, TRUE);
    return *flag;
}

/* Ends the process if the main loop makes no progress at all for
 * STALL_LIMIT_S seconds (a stuck synchronous call); every wait in the main
 * loop has its own deadline, so this is a last resort only. */
static gpointer stall_watchdog(gpointer data)
{
    for (;;) {
        g_usleep(G_USEC_PER_SEC);
        gint64 idle = g_get_monotonic_time() - g_last_progress_us;
        if (idle > (gint64)STALL_LIMIT_S * G_USEC_PER_SEC) {
            fprintf(stderr, "webkit-view: main loop stalled for %d s, giving up\n", STALL_LIMIT_S);
            fflush(stdout);
            _exit(5);
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Control connection to the proxy.                                          */

static int g_control_fd = -1;

static int control_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        return -1;
    }
    struct timeval tv = { CONTROL_TIMEOUT_S, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/* Sends one command line and reads one answer line; returns TRUE on "ok". */
static gboolean control_command(const char *cmd)
{
    if (g_control_fd < 0)
        return FALSE;
    gsize len = strlen(cmd), off = 0;
    while (off < len) {
        ssize_t n = send(g_control_fd, cmd + off, len - off, MSG_NOSIGNAL);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            return FALSE;
        }
        off += (gsize)n;
    }
    char answer[256];
    gsize got = 0;
    while (got < sizeof answer - 1) {
        ssize_t n = recv(g_control_fd, answer + got, 1, 0);
        if (n <= 0) {
            if (n < 0 && errno == EINTR)
                continue;
            return FALSE;
        }
        if (answer[got] == '\n')
            break;
        got++;
    }
    answer[got] = 0;
    if (strcmp(answer, "ok") != 0) {
        fprintf(stderr, "webkit-view: control answered \"%s\" to %s", answer, cmd);
        return FALSE;
    }
    return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Web view state.                                                           */

static WebKitWebView *g_view;
static gboolean g_load_done;
static char *g_load_error;
static const char *g_waiting_for_uri; /* only a load of this URI counts, if set */

static void on_load_failed_common(const char *uri, const GError *error)
{
    if (g_waiting_for_uri && g_strcmp0(uri, g_waiting_for_uri) != 0)
        return;
    if (!g_load_error)
        g_load_error = g_strdup(error ? error->message : "load failed");
}

static gboolean on_load_failed(WebKitWebView *view, WebKitLoadEvent event, gchar *uri, GError *error, gpointer data)
{
    on_load_failed_common(uri, error);
    /* Load failures are reported on our stdout line, not by a WebKit error page. */
    return TRUE;
}

static void on_load_changed(WebKitWebView *view, WebKitLoadEvent event, gpointer data)
{
    if (event != WEBKIT_LOAD_FINISHED)
        return;
    if (g_waiting_for_uri && g_strcmp0(webkit_web_view_get_uri(view), g_waiting_for_uri) != 0)
        return;
    g_load_done = TRUE;
}

/* A crash ends the current wait; the next load starts a new web process. */
static void on_web_process_terminated(WebKitWebView *view, WebKitWebProcessTerminationReason reason, gpointer data)
{
    const char *what = reason == WEBKIT_WEB_PROCESS_CRASHED ? "web process crashed"
        : reason == WEBKIT_WEB_PROCESS_EXCEEDED_MEMORY_LIMIT ? "web process exceeded its memory limit"
        : NULL;
    if (!what)
        return; /* terminated by us, see recover_if_unresponsive() */
    fprintf(stderr, "webkit-view: %s\n", what);
    if (!g_load_error)
        g_load_error = g_strdup(what);
    g_load_done = TRUE;
}

static void reset_load(const char *only_uri)
{
    g_load_done = FALSE;
    g_free(g_load_error);
    g_load_error = NULL;
    g_waiting_for_uri = only_uri;
}

/* One JavaScript evaluation.  If its waiter gives up, the callback frees it. */
typedef struct {
    gboolean done;
    gboolean abandoned;
    JSCValue *value;
    GError *error;
} Eval;

static void eval_done(GObject *source, GAsyncResult *result, gpointer data)
{
    Eval *ev = data;
    GError *error = NULL;
    JSCValue *value = webkit_web_view_evaluate_javascript_finish(WEBKIT_WEB_VIEW(source), result, &error);
    if (ev->abandoned) {
        if (value)
            g_object_unref(value);
        if (error)
            g_error_free(error);
        g_free(ev);
        return;
    }
    ev->value = value;
    ev->error = error;
    ev->done = TRUE;
}

/* Evaluates script in the main frame's page world; returns NULL on timeout
 * (the Eval is then abandoned), else an Eval the caller frees with
 * eval_free. */
static Eval *evaluate(const char *script, gint64 deadline_us)
{
    Eval *ev = g_new0(Eval, 1);
    webkit_web_view_evaluate_javascript(g_view, script, -1, NULL, NULL, NULL, eval_done, ev);
    if (!run_until(&ev->done, deadline_us)) {
        ev->abandoned = TRUE;
        return NULL;
    }
    return ev;
}

static void eval_free(Eval *ev)
{
    if (!ev)
        return;
    if (ev->value)
        g_object_unref(ev->value);
    if (ev->error)
        g_error_free(ev->error);
    g_free(ev);
}

/* After a wait timed out: if the web process does not even answer "1"
 * within a second (a page spinning in script), terminate it so that the
 * next load gets a fresh one instead of timing out too.  Returns TRUE if
 * the process had to be terminated. */
static gboolean recover_if_unresponsive(guint page)
{
    Eval *ev = evaluate("1", g_get_monotonic_time() + G_USEC_PER_SEC);
    if (ev) {
        eval_free(ev);
        return FALSE;
    }
    fprintf(stderr, "webkit-view: page %u: web process unresponsive, terminating it\n", page);
    webkit_web_view_terminate_web_process(g_view);
    return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Rule list and cookies.                                                    */

typedef struct {
    gboolean done;
    WebKitUserContentFilter *filter;
    GError *error;
} SaveState;

static void save_done(GObject *source, GAsyncResult *result, gpointer data)
{
    SaveState *st = data;
    st->filter = webkit_user_content_filter_store_save_finish(WEBKIT_USER_CONTENT_FILTER_STORE(source), result, &st->error);
    st->done = TRUE;
}

typedef struct {
    int pending;
    int failed;
} CookieState;

static void cookie_added(GObject *source, GAsyncResult *result, gpointer data)
{
    CookieState *cs = data;
    GError *error = NULL;
    if (!webkit_cookie_manager_add_cookie_finish(WEBKIT_COOKIE_MANAGER(source), result, &error)) {
        fprintf(stderr, "webkit-view: adding a cookie failed: %s\n", error ? error->message : "?");
        cs->failed++;
        g_clear_error(&error);
    }
    cs->pending--;
}

/* ------------------------------------------------------------------------ */

static void usage(FILE *f)
{
    fputs("usage: webkit-view --pages PAGES.jsonl --proxy http://127.0.0.1:P --control P2\n"
          "                   [--rules FILE] [--cookie-hosts FILE] [--store DIR]\n"
          "                   [--settle-ms 1500] [--page-timeout-ms 10000] [--drain-ms 100] [--between blank|none]\n"
          "                   [--cache-model document-viewer|web-browser]\n"
          "Prints one JSON line per page on stdout.\n", f);
}

/* Returns the string value of "url" in one JSON object line, or NULL. */
static char *page_url(const char *line, gsize len)
{
    Reader r = { line, line + len, NULL };
    char *url = NULL;
    skip_ws(&r);
    if (r.p >= r.end || *r.p != '{')
        return NULL;
    r.p++;
    skip_ws(&r);
    if (r.p < r.end && *r.p == '}')
        return NULL;
    for (;;) {
        skip_ws(&r);
        GString *key = read_string(&r);
        if (!key)
            break;
        skip_ws(&r);
        if (r.p >= r.end || *r.p != ':') {
            g_string_free(key, TRUE);
            break;
        }
        r.p++;
        skip_ws(&r);
        gboolean is_url = !strcmp(key->str, "url");
        g_string_free(key, TRUE);
        if (is_url && r.p < r.end && *r.p == '"') {
            GString *v = read_string(&r);
            if (!v)
                break;
            g_free(url);
            url = g_string_free(v, FALSE);
        } else if (!skip_value(&r, 0)) {
            break;
        }
        skip_ws(&r);
        if (r.p < r.end && *r.p == ',') {
            r.p++;
            continue;
        }
        if (r.p < r.end && *r.p == '}')
            return url;
        break;
    }
    g_free(url);
    return NULL;
}

static GPtrArray *read_page_urls(const char *path, GError **error)
{
    char *data = NULL;
    gsize len = 0;
    if (!g_file_get_contents(path, &data, &len, error))
        return NULL;
    GPtrArray *urls = g_ptr_array_new_with_free_func(g_free);
    const char *line = data;
    const char *end = data + len;
    while (line < end) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *stop = nl ? nl : end;
        const char *p = line;
        while (p < stop && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        /* An unreadable line keeps its index; it is reported as not loaded. */
        if (p < stop)
            g_ptr_array_add(urls, page_url(line, (gsize)(stop - line)));
        line = nl ? nl + 1 : end;
    }
    g_free(data);
    return urls;
}

static long parse_ms(const char *opt, const char *s)
{
    char *endp = NULL;
    long v = strtol(s, &endp, 10);
    if (!*s || *endp || v < 0) {
        fprintf(stderr, "webkit-view: %s needs a number of milliseconds, not \"%s\"\n", opt, s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    const char *pages_path = NULL, *proxy = NULL, *rules_path = NULL;
    const char *cookie_hosts_path = NULL, *store_arg = NULL;
    int control_port = -1;
    long settle_ms = 1500, page_timeout_ms = 10000, drain_ms = 100;
    gboolean between_blank = TRUE;
    WebKitCacheModel cache_model = WEBKIT_CACHE_MODEL_DOCUMENT_VIEWER;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!v) {
            fprintf(stderr, "webkit-view: %s needs a value\n", a);
            usage(stderr);
            return 2;
        }
        if (!strcmp(a, "--pages"))
            pages_path = v;
        else if (!strcmp(a, "--proxy"))
            proxy = v;
        else if (!strcmp(a, "--control"))
            control_port = (int)parse_ms(a, v);
        else if (!strcmp(a, "--rules"))
            rules_path = v;
        else if (!strcmp(a, "--cookie-hosts"))
            cookie_hosts_path = v;
        else if (!strcmp(a, "--store"))
            store_arg = v;
        else if (!strcmp(a, "--settle-ms"))
            settle_ms = parse_ms(a, v);
        else if (!strcmp(a, "--page-timeout-ms"))
            page_timeout_ms = parse_ms(a, v);
        else if (!strcmp(a, "--between")) {
            if (!strcmp(v, "blank"))
                between_blank = TRUE;
            else if (!strcmp(v, "none"))
                between_blank = FALSE;
            else {
                fprintf(stderr, "webkit-view: --between takes blank or none, not %s\n", v);
                return 2;
            }
        }
        else if (!strcmp(a, "--drain-ms"))
            drain_ms = parse_ms(a, v);
        else if (!strcmp(a, "--cache-model") && !strcmp(v, "document-viewer"))
            cache_model = WEBKIT_CACHE_MODEL_DOCUMENT_VIEWER;
        else if (!strcmp(a, "--cache-model") && !strcmp(v, "web-browser"))
            cache_model = WEBKIT_CACHE_MODEL_WEB_BROWSER;
        else {
            fprintf(stderr, "webkit-view: unknown option %s\n", a);
            usage(stderr);
            return 2;
        }
        i++;
    }
    if (!pages_path || !proxy || control_port <= 0 || control_port > 65535) {
        usage(stderr);
        return 2;
    }

    /* Software rendering, no accessibility bus: nothing here has a GPU or a
     * D-Bus session, and neither is needed. */
    g_setenv("WEBKIT_DISABLE_DMABUF_RENDERER", "1", FALSE);
    g_setenv("NO_AT_BRIDGE", "1", FALSE);
    g_setenv("GTK_A11Y", "none", FALSE);

    if (!gtk_init_check(&argc, &argv)) {
        fprintf(stderr, "webkit-view: cannot open a display (run under xvfb-run)\n");
        return 1;
    }

    GError *error = NULL;
    GPtrArray *urls = read_page_urls(pages_path, &error);
    if (!urls) {
        fprintf(stderr, "webkit-view: cannot read %s: %s\n", pages_path, error->message);
        return 1;
    }

    g_last_progress_us = g_get_monotonic_time();
    g_timeout_add(10, heartbeat, NULL);
    g_thread_unref(g_thread_new("watchdog", stall_watchdog, NULL));

    /* Compile the rule list first: a list WebKit rejects ends the run before
     * anything is loaded. */
    WebKitUserContentFilter *filter = NULL;
    WebKitUserContentFilterStore *store = NULL;
    char *store_dir = NULL;
    gboolean made_store = FALSE;
    if (rules_path) {
        char *data = NULL;
        gsize n = 0;
        if (!g_file_get_contents(rules_path, &data, &n, &error)) {
            fprintf(stderr, "webkit-view: cannot read %s: %s\n", rules_path, error->message);
            return 1;
        }
        if (store_arg) {
            g_mkdir_with_parents(store_arg, 0700);
            store_dir = g_canonicalize_filename(store_arg, NULL);
        } else {
            store_dir = g_dir_make_tmp("webkit-view-XXXXXX", &error);
            if (!store_dir) {
                fprintf(stderr, "webkit-view: cannot create a store folder: %s\n", error->message);
                return 1;
            }
            made_store = TRUE;
        }
        store = webkit_user_content_filter_store_new(store_dir);
        GBytes *bytes = g_bytes_new_take(data, n);
        SaveState st = { 0 };
        webkit_user_content_filter_store_save(store, "bb-view", bytes, NULL, save_done, &st);
        while (!st.done)
            g_main_context_iteration(NULL, TRUE);
        g_bytes_unref(bytes);
        if (!st.filter) {
            const char *msg = st.error ? st.error->message : "unknown error";
            fprintf(stderr, "webkit-view: WebKit rejected the rule list %s: %s\n", rules_path, msg);
            GString *out = g_string_new("{\"compileError\":");
            json_string(out, msg, -1);
            g_string_append_c(out, '}');
            emit(out);
            g_string_free(out, TRUE);
            return 4;
        }
        filter = st.filter;
    }

    /* Ephemeral session: no disk cache, no stored cookies between runs. */
    WebKitWebsiteDataManager *manager = webkit_website_data_manager_new_ephemeral();
    WebKitNetworkProxySettings *proxy_settings = webkit_network_proxy_settings_new(proxy, NULL);
    webkit_website_data_manager_set_network_proxy_settings(manager, WEBKIT_NETWORK_PROXY_MODE_CUSTOM, proxy_settings);
    webkit_network_proxy_settings_free(proxy_settings);
    webkit_website_data_manager_set_tls_errors_policy(manager, WEBKIT_TLS_ERRORS_POLICY_IGNORE);
    webkit_website_data_manager_set_itp_enabled(manager, FALSE);
    WebKitCookieManager *cookies = webkit_website_data_manager_get_cookie_manager(manager);
    webkit_cookie_manager_set_accept_policy(cookies, WEBKIT_COOKIE_POLICY_ACCEPT_ALWAYS);

    /* The favicon database stays off: it is only enabled by
     * webkit_web_context_set_favicon_database_directory(), never called. */
    WebKitWebContext *context = webkit_web_context_new_with_website_data_manager(manager);
    webkit_web_context_set_cache_model(context, cache_model);

    WebKitSettings *settings = webkit_settings_new();
    webkit_settings_set_enable_javascript(settings, TRUE);
    webkit_settings_set_enable_page_cache(settings, FALSE);
    webkit_settings_set_hardware_acceleration_policy(settings, WEBKIT_HARDWARE_ACCELERATION_POLICY_NEVER);
    /* DNS prefetching is a no-op setting in 2.50 (deprecated); the proxy
     * resolves nothing anyway. */

    WebKitUserContentManager *ucm = webkit_user_content_manager_new();
    if (filter)
        webkit_user_content_manager_add_filter(ucm, filter);

    g_view = WEBKIT_WEB_VIEW(g_object_new(WEBKIT_TYPE_WEB_VIEW,
        "web-context", context,
        "settings", settings,
        "user-content-manager", ucm,
        NULL));
    g_signal_connect(g_view, "load-changed", G_CALLBACK(on_load_changed), NULL);
    g_signal_connect(g_view, "load-failed", G_CALLBACK(on_load_failed), NULL);
    g_signal_connect(g_view, "web-process-terminated", G_CALLBACK(on_web_process_terminated), NULL);

    /* A mapped window, so the page is visible (no background throttling). */
    GtkWidget *window = gtk_window_new(GTK_WINDOW_TOPLEVEL);
    gtk_window_set_default_size(GTK_WINDOW(window), 1280, 900);
    gtk_container_add(GTK_CONTAINER(window), GTK_WIDGET(g_view));
    gtk_widget_show_all(window);

    /* Cookies before any page. */
    if (cookie_hosts_path) {
        char *data = NULL;
        if (!g_file_get_contents(cookie_hosts_path, &data, NULL, &error)) {
            fprintf(stderr, "webkit-view: cannot read %s: %s\n", cookie_hosts_path, error->message);
            return 1;
        }
        CookieState cs = { 0, 0 };
        char **lines = g_strsplit(data, "\n", -1);
        for (char **l = lines; *l; l++) {
            g_strstrip(*l);
            if (!**l)
                continue;
            SoupCookie *c = soup_cookie_new("bb", "1", *l, "/", -1);
            /* Sent with cross-site subresource requests too (not Lax). */
            soup_cookie_set_same_site_policy(c, SOUP_SAME_SITE_POLICY_NONE);
            cs.pending++;
            webkit_cookie_manager_add_cookie(cookies, c, NULL, cookie_added, &cs);
            soup_cookie_free(c);
        }
        g_strfreev(lines);
        g_free(data);
        gint64 deadline = g_get_monotonic_time() + 10 * G_USEC_PER_SEC;
        while (cs.pending > 0 && g_get_monotonic_time() < deadline)
            g_main_context_iteration(NULL, TRUE);
        if (cs.pending > 0 || cs.failed) {
            fprintf(stderr, "webkit-view: %d cookie(s) not confirmed, %d failed\n", cs.pending, cs.failed);
            return 1;
        }
    }

    g_control_fd = control_connect(control_port);
    if (g_control_fd < 0) {
        fprintf(stderr, "webkit-view: cannot connect to the control port %d: %s\n", control_port, g_strerror(errno));
        return 1;
    }

    int status = 0;
    for (guint i = 0; i < urls->len; i++) {
        const char *url = g_ptr_array_index(urls, i);
        gint64 page_start = g_get_monotonic_time();
        char cmd[64];
        g_snprintf(cmd, sizeof cmd, "page %u\n", i);
        if (!control_command(cmd)) {
            fprintf(stderr, "webkit-view: control connection failed at page %u\n", i);
            status = 1;
            break;
        }

        gboolean loaded = FALSE, bb_done = FALSE, terminated = FALSE;
        char *load_error = NULL;
        char *report = NULL;
        long load_ms = 0, settle_ms_used = 0;

        if (!url) {
            load_error = g_strdup("input: line has no string \"url\"");
        } else {
            reset_load(NULL);
            webkit_web_view_load_uri(g_view, url);
            gint64 deadline = page_start + (gint64)page_timeout_ms * 1000;
            gboolean finished = run_until(&g_load_done, deadline);
            load_ms = ms_since(page_start);
            if (!finished) {
                webkit_web_view_stop_loading(g_view);
                terminated = recover_if_unresponsive(i);
                load_error = g_strdup_printf("timeout after %ld ms%s", page_timeout_ms,
                                             terminated ? " (web process unresponsive, terminated)" : "");
            } else if (g_load_error) {
                load_error = g_strdup(g_load_error);
            } else {
                loaded = TRUE;
            }

            if (loaded) {
                gint64 settle_start = g_get_monotonic_time();
                gint64 settle_end = settle_start + (gint64)settle_ms * 1000;
                for (;;) {
                    gint64 poll_start = g_get_monotonic_time();
                    Eval *ev = evaluate("window.bbDone === true", settle_end);
                    if (ev && ev->value && jsc_value_is_boolean(ev->value) && jsc_value_to_boolean(ev->value))
                        bb_done = TRUE;
                    eval_free(ev);
                    if (bb_done || g_get_monotonic_time() >= settle_end)
                        break;
                    gint64 next = MIN(poll_start + POLL_MS * 1000, settle_end);
                    gboolean never = FALSE;
                    run_until(&never, next);
                    if (g_get_monotonic_time() >= settle_end)
                        break;
                }
                settle_ms_used = ms_since(settle_start);
            }

            Eval *ev = terminated ? NULL
                : evaluate("JSON.stringify(typeof bbReport === 'function' ? bbReport() : null)",
                           g_get_monotonic_time() + (gint64)JS_TIMEOUT_MS * 1000);
            if (terminated) {
                /* no report from a terminated process */
            } else if (!ev) {
                fprintf(stderr, "webkit-view: page %u: bbReport evaluation timed out\n", i);
                terminated = recover_if_unresponsive(i);
            } else if (ev->error) {
                fprintf(stderr, "webkit-view: page %u: bbReport failed: %s\n", i, ev->error->message);
            } else if (ev->value && jsc_value_is_string(ev->value)) {
                report = jsc_value_to_string(ev->value);
            }
            eval_free(ev);
        }

        GString *out = g_string_new(NULL);
        g_string_append_printf(out, "{\"page\":%u,\"url\":", i);
        json_string(out, url, -1);
        g_string_append_printf(out, ",\"loaded\":%s,\"error\":", loaded ? "true" : "false");
        json_string(out, load_error, -1);
        g_string_append(out, ",\"report\":");
        g_string_append(out, report && *report ? report : "null");
        g_string_append_printf(out, ",\"bbDone\":%s,\"loadMs\":%ld,\"settleMs\":%ld",
                               bb_done ? "true" : "false", load_ms, settle_ms_used);

        /* about:blank before the next page: the page unloads while the proxy
         * still counts its requests as page i. */
        if (between_blank) {
            reset_load("about:blank");
            webkit_web_view_load_uri(g_view, "about:blank");
            if (!run_until(&g_load_done, g_get_monotonic_time() + (gint64)BLANK_TIMEOUT_MS * 1000)) {
                fprintf(stderr, "webkit-view: page %u: about:blank did not finish within %d ms\n", i, BLANK_TIMEOUT_MS);
                if (!terminated)
                    recover_if_unresponsive(i);
            }
            reset_load(NULL);
        }
        gboolean never = FALSE;
        run_until(&never, g_get_monotonic_time() + (gint64)drain_ms * 1000);

        g_string_append_printf(out, ",\"totalMs\":%ld}", ms_since(page_start));
        emit(out);
        g_string_free(out, TRUE);
        g_free(load_error);
        g_free(report);
    }

    if (status == 0 && !control_command("quit\n")) {
        fprintf(stderr, "webkit-view: control did not acknowledge quit\n");
        status = 1;
    }
    if (g_control_fd >= 0)
        close(g_control_fd);

    if (store) {
        char *file = g_build_filename(store_dir, "ContentRuleList-bb-view", NULL);
        if (made_store) {
            unlink(file);
            rmdir(store_dir);
        }
        g_free(file);
    }
    /* Exit without tearing down the view: WebKit's helper processes end
     * when their connection to this process closes. */
    return status;
}
