/*
 * webkit-compile: compile Safari/WebKit content-blocker rule lists with the
 * real WebKit compiler (WebKitGTK's WebKitUserContentFilterStore), headless,
 * and print one JSON line per list.
 *
 * Part of BlockBench (Benchmarks/Peers/WebKit). Build with ./build.sh.
 *
 * Usage:
 *   webkit-compile [--store DIR] [--keep] FILE.json...
 *   webkit-compile [--store DIR] [--keep] [--batch]  < lists.jsonl
 *
 * Batch input: one JSON object per line:
 *   {"id": <any JSON value>, "rules": "<rule list JSON text>"}
 * or, for byte-exact input (invalid UTF-8, NUL bytes, ...):
 *   {"id": ..., "rulesBase64": "<base64 of the rule list bytes>"}
 * Blank lines are skipped.  A line that cannot be read produces a result line
 * with "ok": null and "inputError".
 *
 * Output (stdout, one line per list, flushed after each line):
 *   {"id":..., "ok":true|false, "error":"..."|null, "domain":"..."|null,
 *    "code":N|null, "reasons":["Error while parsing ...", ...],
 *    "seconds":S, "cpuSeconds":S, "rssBeforeBytes":N|null, "peakRSSBytes":N|null,
 *    "header":{...}|null, "fileBytes":N|null, ...}
 *
 * cpuSeconds: the process's user and system time over the save call (the
 * compile's work, which other work on the machine does not lengthen as it
 * does the wall time "seconds").
 *
 * Memory: the process's resident size before the save call, and its peak
 * resident size during it (the peak is reset before the call through
 * /proc/self/clear_refs, so each list has its own).  WebKitGTK compiles in
 * this process, on a work queue.  Null where /proc does not give them.
 *
 * Regex failures only give a generic GError message; WebKit writes the
 * specific reason to stderr ("Error while parsing <pattern>: <reason>") from
 * the compiling thread of this very process.  We therefore point fd 2 at a
 * scratch file for the duration of each save call and collect those lines.
 */

#include <webkit2/webkit2.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER_SIZE 64
#define REASON_PREFIX "Error while parsing "

#include "json-text.h"

typedef struct {
    char *id_json;   /* raw JSON text of the id value */
    GBytes *rules;   /* rule list bytes */
    char *error;     /* input error, if any */
} InputLine;

static void parse_input_line(const char *line, gsize len, long lineno, InputLine *out)
{
    Reader r = { line, line + len, NULL };
    memset(out, 0, sizeof *out);
    skip_ws(&r);
    if (r.p >= r.end || *r.p != '{') {
        r.err = "line is not a JSON object";
        goto fail;
    }
    r.p++;
    skip_ws(&r);
    if (r.p < r.end && *r.p == '}') {
        r.p++;
        goto done;
    }
    for (;;) {
        skip_ws(&r);
        GString *key = read_string(&r);
        if (!key)
            goto fail;
        skip_ws(&r);
        if (r.p >= r.end || *r.p != ':') {
            g_string_free(key, TRUE);
            r.err = "expected ':'";
            goto fail;
        }
        r.p++;
        skip_ws(&r);
        if (!strcmp(key->str, "id")) {
            const char *start = r.p;
            if (!skip_value(&r, 0)) {
                g_string_free(key, TRUE);
                goto fail;
            }
            g_free(out->id_json);
            out->id_json = g_strndup(start, r.p - start);
        } else if (!strcmp(key->str, "rules") || !strcmp(key->str, "rulesBase64")) {
            gboolean b64 = !strcmp(key->str, "rulesBase64");
            GString *v = read_string(&r);
            if (!v) {
                g_string_free(key, TRUE);
                goto fail;
            }
            if (out->rules)
                g_bytes_unref(out->rules);
            if (b64) {
                gsize n = 0;
                guchar *data = g_base64_decode(v->str, &n);
                out->rules = g_bytes_new_take(data, n);
                g_string_free(v, TRUE);
            } else {
                gsize n = v->len;
                out->rules = g_bytes_new_take(g_string_free(v, FALSE), n);
            }
        } else if (!skip_value(&r, 0)) {
            g_string_free(key, TRUE);
            goto fail;
        }
        g_string_free(key, TRUE);
        skip_ws(&r);
        if (r.p < r.end && *r.p == ',') {
            r.p++;
            continue;
        }
        if (r.p < r.end && *r.p == '}') {
            r.p++;
            break;
        }
        r.err = "expected ',' or '}'";
        goto fail;
    }
done:
    skip_ws(&r);
    if (r.p != r.end) {
        r.err = "trailing characters after the object";
        goto fail;
    }
    if (!out->rules) {
        r.err = "missing \"rules\" or \"rulesBase64\"";
        goto fail;
    }
    if (!out->id_json)
        out->id_json = g_strdup_printf("%ld", lineno);
    return;
fail:
    out->error = g_strdup(r.err ? r.err : "unreadable line");
    if (!out->id_json)
        out->id_json = g_strdup_printf("%ld", lineno);
    if (out->rules) {
        g_bytes_unref(out->rules);
        out->rules = NULL;
    }
}

/* ------------------------------------------------------------------------ */
/* Compilation.                                                              */

typedef struct {
    gboolean done;
    WebKitUserContentFilter *filter;
    GError *error;
    gint64 finished_us;
} SaveState;

static GMainLoop *g_loop;
static WebKitUserContentFilterStore *g_store;
static char *g_store_dir;
static gboolean g_keep;
static int g_capture_fd = -1;
static unsigned long g_counter;

static void save_done(GObject *source, GAsyncResult *result, gpointer data)
{
    SaveState *st = data;
    st->finished_us = g_get_monotonic_time();
    st->filter = webkit_user_content_filter_store_save_finish(WEBKIT_USER_CONTENT_FILTER_STORE(source), result, &st->error);
    st->done = TRUE;
    g_main_loop_quit(g_loop);
}

static guint64 read_le64(const unsigned char *p)
{
    guint64 v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static guint32 read_le32(const unsigned char *p)
{
    return (guint32)p[0] | ((guint32)p[1] << 8) | ((guint32)p[2] << 16) | ((guint32)p[3] << 24);
}

/* Reads everything written to the capture file since it was truncated. */
static char *read_capture(gsize *len)
{
    struct stat sb;
    *len = 0;
    if (fstat(g_capture_fd, &sb) != 0 || sb.st_size <= 0)
        return g_strdup("");
    char *buf = g_malloc((gsize)sb.st_size + 1);
    gsize got = 0;
    while (got < (gsize)sb.st_size) {
        ssize_t n = pread(g_capture_fd, buf + got, (gsize)sb.st_size - got, (off_t)got);
        if (n <= 0)
            break;
        got += (gsize)n;
    }
    buf[got] = 0;
    *len = got;
    return buf;
}

static void free_gstring(gpointer s)
{
    g_string_free(s, TRUE);
}

/* Splits captured stderr into "Error while parsing" messages and the rest.  */
static void split_capture(const char *buf, gsize len, GPtrArray *reasons, GString *other)
{
    gsize plen = strlen(REASON_PREFIX);
    gsize i = 0;
    while (i < len) {
        /* i is at the start of a line */
        const char *nl = memchr(buf + i, '\n', len - i);
        gsize line_end = nl ? (gsize)(nl - buf) : len;
        if (len - i >= plen && !memcmp(buf + i, REASON_PREFIX, plen)) {
            /* A message runs until the next line that starts a new message
             * (patterns may contain newlines). */
            gsize j = nl ? line_end + 1 : len;
            while (j < len && !(len - j >= plen && !memcmp(buf + j, REASON_PREFIX, plen))) {
                const char *nl2 = memchr(buf + j, '\n', len - j);
                j = nl2 ? (gsize)(nl2 - buf) + 1 : len;
            }
            gsize msg_end = j;
            if (msg_end > i && buf[msg_end - 1] == '\n')
                msg_end--;
            g_ptr_array_add(reasons, g_string_new_len(buf + i, (gssize)(msg_end - i)));
            i = j;
        } else {
            g_string_append_len(other, buf + i, (nl ? line_end + 1 : len) - i);
            i = nl ? line_end + 1 : len;
        }
    }
}

/* A "Key:   N kB" line of /proc/self/status, in bytes; -1 when absent. */
static long long status_bytes(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    long long value = -1;
    size_t n = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, key, n) && line[n] == ':') {
            value = strtoll(line + n + 1, NULL, 10) * 1024;
            break;
        }
    }
    fclose(f);
    return value;
}

/* The process's user and system time so far, in seconds. */
static double cpu_seconds(void)
{
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0)
        return 0;
    return (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

/* Sets the peak resident size (VmHWM) to the present one. */
static gboolean reset_peak_rss(void)
{
    int fd = open("/proc/self/clear_refs", O_WRONLY);
    if (fd < 0)
        return FALSE;
    gboolean ok = write(fd, "5", 1) == 1;
    close(fd);
    return ok;
}

static void compile_one(const char *id_json, GBytes *rules)
{
    char ident[64];
    g_snprintf(ident, sizeof ident, "wkc-%d-%lu", (int)getpid(), ++g_counter);

    SaveState st = { 0 };

    /* Point fd 2 at the capture file while WebKit compiles. */
    fflush(stderr);
    int saved_fd = dup(2);
    if (ftruncate(g_capture_fd, 0) != 0) { /* ignore */ }
    lseek(g_capture_fd, 0, SEEK_SET);
    dup2(g_capture_fd, 2);

    gboolean peak_reset = reset_peak_rss();
    long long rss_before = status_bytes("VmRSS");
    double cpu_start = cpu_seconds();
    gint64 start = g_get_monotonic_time();
    webkit_user_content_filter_store_save(g_store, ident, rules, NULL, save_done, &st);
    while (!st.done)
        g_main_loop_run(g_loop);
    double cpu = cpu_seconds() - cpu_start;
    long long peak_rss = peak_reset ? status_bytes("VmHWM") : -1;

    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);

    gsize cap_len;
    char *cap = read_capture(&cap_len);
    GPtrArray *reasons = g_ptr_array_new_with_free_func(free_gstring);
    GString *other = g_string_new(NULL);
    split_capture(cap, cap_len, reasons, other);
    g_free(cap);

    double seconds = (double)(st.finished_us - start) / 1e6;

    GString *out = g_string_new(NULL);
    g_lossy = FALSE;
    g_string_append_printf(out, "{\"id\":%s,\"ok\":%s,\"error\":", id_json, st.filter ? "true" : "false");
    if (st.error) {
        json_string(out, st.error->message, -1);
        g_string_append(out, ",\"domain\":");
        json_string(out, g_quark_to_string(st.error->domain), -1);
        g_string_append_printf(out, ",\"code\":%d", st.error->code);
    } else {
        g_string_append(out, "null,\"domain\":null,\"code\":null");
    }
    g_string_append(out, ",\"reasons\":[");
    for (guint k = 0; k < reasons->len; k++) {
        if (k)
            g_string_append_c(out, ',');
        GString *reason = g_ptr_array_index(reasons, k);
        json_string(out, reason->str, (gssize)reason->len);
    }
    g_string_append_printf(out, "],\"seconds\":%.6f,\"cpuSeconds\":%.6f,\"inputBytes\":%" G_GSIZE_FORMAT,
        seconds, cpu, g_bytes_get_size(rules));
    if (rss_before >= 0 && peak_rss >= 0)
        g_string_append_printf(out, ",\"rssBeforeBytes\":%lld,\"peakRSSBytes\":%lld", rss_before, peak_rss);
    else
        g_string_append(out, ",\"rssBeforeBytes\":null,\"peakRSSBytes\":null");

    char *path = g_build_filename(g_store_dir, "ContentRuleList-", NULL);
    char *file = g_strconcat(path, ident, NULL);
    g_free(path);
    if (st.filter) {
        unsigned char hdr[HEADER_SIZE];
        struct stat sb;
        int fd = open(file, O_RDONLY);
        if (fd >= 0 && fstat(fd, &sb) == 0 && read(fd, hdr, HEADER_SIZE) == HEADER_SIZE) {
            guint64 src = read_le64(hdr + 4), act = read_le64(hdr + 12), url = read_le64(hdr + 20);
            guint64 top = read_le64(hdr + 28), frame = read_le64(hdr + 36);
            g_string_append_printf(out,
                ",\"header\":{\"version\":%u,\"source\":%" G_GUINT64_FORMAT ",\"actions\":%" G_GUINT64_FORMAT
                ",\"url\":%" G_GUINT64_FORMAT ",\"topURL\":%" G_GUINT64_FORMAT ",\"frameURL\":%" G_GUINT64_FORMAT
                ",\"reserved\":\"",
                read_le32(hdr), src, act, url, top, frame);
            for (int k = 44; k < HEADER_SIZE; k++)
                g_string_append_printf(out, "%02x", hdr[k]);
            g_string_append_printf(out, "\"},\"fileBytes\":%lld,\"headerConsistent\":%s",
                (long long)sb.st_size,
                (guint64)HEADER_SIZE + src + act + url + top + frame == (guint64)sb.st_size ? "true" : "false");
            /* Fingerprint of everything after the stored source (actions and
             * the three bytecode blobs): equal fingerprints mean WebKit
             * compiled two lists to the same program. */
            if ((guint64)sb.st_size >= (guint64)HEADER_SIZE + src && lseek(fd, (off_t)(HEADER_SIZE + src), SEEK_SET) >= 0) {
                GChecksum *sum = g_checksum_new(G_CHECKSUM_SHA256);
                unsigned char chunk[65536];
                ssize_t n;
                while ((n = read(fd, chunk, sizeof chunk)) > 0)
                    g_checksum_update(sum, chunk, (gssize)n);
                g_string_append_printf(out, ",\"compiledSha256\":\"%s\"", g_checksum_get_string(sum));
                g_checksum_free(sum);
            }
        } else {
            g_string_append(out, ",\"header\":null,\"fileBytes\":null,\"fileError\":");
            json_string(out, g_strerror(errno), -1);
        }
        if (fd >= 0)
            close(fd);
        if (g_keep) {
            g_string_append(out, ",\"file\":");
            json_string(out, file, -1);
        } else {
            unlink(file);
        }
        webkit_user_content_filter_unref(st.filter);
    } else {
        g_string_append(out, ",\"header\":null,\"fileBytes\":null");
    }
    g_free(file);
    if (other->len) {
        g_string_append(out, ",\"otherStderr\":");
        json_string(out, other->str, (gssize)other->len);
    }
    if (g_lossy)
        g_string_append(out, ",\"lossy\":true");
    g_string_append(out, "}\n");
    fwrite(out->str, 1, out->len, stdout);
    fflush(stdout);

    g_string_free(out, TRUE);
    g_string_free(other, TRUE);
    g_ptr_array_free(reasons, TRUE);
    if (st.error)
        g_error_free(st.error);
}

static void report_input_error(const char *id_json, const char *message)
{
    GString *out = g_string_new(NULL);
    g_string_append_printf(out, "{\"id\":%s,\"ok\":null,\"inputError\":", id_json);
    json_string(out, message, -1);
    g_string_append(out, "}\n");
    fwrite(out->str, 1, out->len, stdout);
    fflush(stdout);
    g_string_free(out, TRUE);
}

static void usage(FILE *f)
{
    fputs("usage: webkit-compile [--store DIR] [--keep] FILE.json...\n"
          "       webkit-compile [--store DIR] [--keep] [--batch] < lists.jsonl\n"
          "Batch lines: {\"id\": ..., \"rules\": \"<rule list JSON>\"} or {\"id\": ..., \"rulesBase64\": \"...\"}\n"
          "Prints one JSON result line per list on stdout.\n", f);
}

int main(int argc, char **argv)
{
    const char *store_arg = NULL;
    gboolean batch = FALSE;
    GPtrArray *files = g_ptr_array_new();

    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--store") && i + 1 < argc)
            store_arg = argv[++i];
        else if (!strncmp(argv[i], "--store=", 8))
            store_arg = argv[i] + 8;
        else if (!strcmp(argv[i], "--keep"))
            g_keep = TRUE;
        else if (!strcmp(argv[i], "--batch") || !strcmp(argv[i], "-"))
            batch = TRUE;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--"))
            for (i++; i < argc; i++)
                g_ptr_array_add(files, argv[i]);
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "webkit-compile: unknown option %s\n", argv[i]);
            usage(stderr);
            return 2;
        } else
            g_ptr_array_add(files, argv[i]);
    }
    if (!files->len)
        batch = TRUE;

    gboolean made_store = FALSE;
    if (store_arg) {
        g_mkdir_with_parents(store_arg, 0700);
        g_store_dir = g_canonicalize_filename(store_arg, NULL);
    } else {
        GError *err = NULL;
        g_store_dir = g_dir_make_tmp("webkit-compile-XXXXXX", &err);
        if (!g_store_dir) {
            fprintf(stderr, "webkit-compile: cannot create a store folder: %s\n", err->message);
            return 2;
        }
        made_store = TRUE;
    }

    char *cap_path = g_build_filename(g_get_tmp_dir(), "webkit-compile-stderr-XXXXXX", NULL);
    g_capture_fd = g_mkstemp(cap_path);
    if (g_capture_fd < 0) {
        fprintf(stderr, "webkit-compile: cannot create a capture file: %s\n", g_strerror(errno));
        return 2;
    }
    unlink(cap_path);
    g_free(cap_path);

    g_loop = g_main_loop_new(NULL, FALSE);
    g_store = webkit_user_content_filter_store_new(g_store_dir);

    int status = 0;
    for (guint i = 0; i < files->len; i++) {
        const char *name = g_ptr_array_index(files, i);
        GString *idj = g_string_new(NULL);
        json_string(idj, name, -1);
        char *data = NULL;
        gsize n = 0;
        GError *err = NULL;
        if (!g_file_get_contents(name, &data, &n, &err)) {
            report_input_error(idj->str, err->message);
            g_error_free(err);
            status = 1;
        } else {
            GBytes *b = g_bytes_new_take(data, n);
            compile_one(idj->str, b);
            g_bytes_unref(b);
        }
        g_string_free(idj, TRUE);
    }

    if (batch) {
        char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        long lineno = 0;
        while ((n = getline(&line, &cap, stdin)) >= 0) {
            lineno++;
            gsize len = (gsize)n;
            while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
                len--;
            gsize k = 0;
            while (k < len && (line[k] == ' ' || line[k] == '\t'))
                k++;
            if (k == len)
                continue;
            InputLine in;
            parse_input_line(line, len, lineno, &in);
            if (in.error) {
                report_input_error(in.id_json, in.error);
                status = 1;
            } else {
                compile_one(in.id_json, in.rules);
            }
            g_free(in.id_json);
            g_free(in.error);
            if (in.rules)
                g_bytes_unref(in.rules);
        }
        free(line);
    }

    g_object_unref(g_store);
    close(g_capture_fd);
    if (made_store) {
        if (g_keep)
            fprintf(stderr, "webkit-compile: compiled files kept in %s\n", g_store_dir);
        else if (rmdir(g_store_dir) != 0)
            fprintf(stderr, "webkit-compile: note: store folder %s not empty, left in place\n", g_store_dir);
    }
    g_free(g_store_dir);
    g_ptr_array_free(files, TRUE);
    return status;
}
