/*
 * json-text.h: the JSON text the WebKit tools read and write, included by
 * webkit-compile.c and webkit-view.c (Benchmarks/Peers/WebKit).  Writing: a string
 * always comes out as valid JSON (invalid UTF-8 replaced, g_lossy set).
 * Reading: a minimal reader for the one-object input lines.
 */
#ifndef BLOCKBENCH_JSON_TEXT_H
#define BLOCKBENCH_JSON_TEXT_H

#include <glib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* Output helpers: always emit valid JSON.                                   */

static gboolean g_lossy; /* set when an output string had invalid UTF-8 */

static void json_string(GString *out, const char *s, gssize len)
{
    if (!s) {
        g_string_append(out, "null");
        return;
    }
    if (len < 0)
        len = (gssize)strlen(s);
    const unsigned char *p = (const unsigned char *)s;
    const unsigned char *end = p + len;
    g_string_append_c(out, '"');
    while (p < end) {
        unsigned char c = *p;
        if (c < 0x80) {
            switch (c) {
            case '"': g_string_append(out, "\\\""); break;
            case '\\': g_string_append(out, "\\\\"); break;
            case '\n': g_string_append(out, "\\n"); break;
            case '\r': g_string_append(out, "\\r"); break;
            case '\t': g_string_append(out, "\\t"); break;
            case '\b': g_string_append(out, "\\b"); break;
            case '\f': g_string_append(out, "\\f"); break;
            default:
                if (c < 0x20 || c == 0x7f)
                    g_string_append_printf(out, "\\u%04x", c);
                else
                    g_string_append_c(out, (char)c);
            }
            p++;
            continue;
        }
        gunichar u = g_utf8_get_char_validated((const gchar *)p, end - p);
        if (u == (gunichar)-1 || u == (gunichar)-2) {
            /* Invalid byte: replace by U+FFFD so the line stays valid JSON. */
            g_string_append(out, "\\ufffd");
            g_lossy = TRUE;
            p++;
            continue;
        }
        const unsigned char *next = (const unsigned char *)g_utf8_next_char(p);
        g_string_append_len(out, (const char *)p, next - p);
        p = next;
    }
    g_string_append_c(out, '"');
}

/* ------------------------------------------------------------------------ */
/* Minimal JSON reader for the batch input lines.                            */

typedef struct {
    const char *p;
    const char *end;
    const char *err;
} Reader;

static void skip_ws(Reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\t' || *r->p == '\r' || *r->p == '\n'))
        r->p++;
}

static void put_utf8(GString *s, guint32 cp)
{
    /* Generalised UTF-8 so that lone surrogates survive as ED xx xx bytes. */
    if (cp < 0x80) {
        g_string_append_c(s, (char)cp);
    } else if (cp < 0x800) {
        g_string_append_c(s, (char)(0xC0 | (cp >> 6)));
        g_string_append_c(s, (char)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        g_string_append_c(s, (char)(0xE0 | (cp >> 12)));
        g_string_append_c(s, (char)(0x80 | ((cp >> 6) & 0x3F)));
        g_string_append_c(s, (char)(0x80 | (cp & 0x3F)));
    } else {
        g_string_append_c(s, (char)(0xF0 | (cp >> 18)));
        g_string_append_c(s, (char)(0x80 | ((cp >> 12) & 0x3F)));
        g_string_append_c(s, (char)(0x80 | ((cp >> 6) & 0x3F)));
        g_string_append_c(s, (char)(0x80 | (cp & 0x3F)));
    }
}

static int hex4(const char *p, guint32 *out)
{
    guint32 v = 0;
    for (int i = 0; i < 4; i++) {
        int d = g_ascii_xdigit_value(p[i]);
        if (d < 0)
            return 0;
        v = v * 16 + (guint32)d;
    }
    *out = v;
    return 1;
}

/* Parses a JSON string at r->p (which points at the opening quote). */
static GString *read_string(Reader *r)
{
    if (r->p >= r->end || *r->p != '"') {
        r->err = "expected string";
        return NULL;
    }
    r->p++;
    GString *s = g_string_new(NULL);
    while (r->p < r->end) {
        char c = *r->p++;
        if (c == '"')
            return s;
        if (c != '\\') {
            g_string_append_c(s, c);
            continue;
        }
        if (r->p >= r->end)
            break;
        char e = *r->p++;
        switch (e) {
        case '"': g_string_append_c(s, '"'); break;
        case '\\': g_string_append_c(s, '\\'); break;
        case '/': g_string_append_c(s, '/'); break;
        case 'b': g_string_append_c(s, '\b'); break;
        case 'f': g_string_append_c(s, '\f'); break;
        case 'n': g_string_append_c(s, '\n'); break;
        case 'r': g_string_append_c(s, '\r'); break;
        case 't': g_string_append_c(s, '\t'); break;
        case 'u': {
            guint32 cp;
            if (r->end - r->p < 4 || !hex4(r->p, &cp)) {
                r->err = "bad \\u escape";
                g_string_free(s, TRUE);
                return NULL;
            }
            r->p += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF && r->end - r->p >= 6 && r->p[0] == '\\' && r->p[1] == 'u') {
                guint32 lo;
                if (hex4(r->p + 2, &lo) && lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    r->p += 6;
                }
            }
            put_utf8(s, cp);
            break;
        }
        default:
            r->err = "bad escape";
            g_string_free(s, TRUE);
            return NULL;
        }
    }
    r->err = "unterminated string";
    g_string_free(s, TRUE);
    return NULL;
}

/* Skips any JSON value; returns 0 on error. */
static int skip_value(Reader *r, int depth)
{
    if (depth > 10000) {
        r->err = "nesting too deep";
        return 0;
    }
    skip_ws(r);
    if (r->p >= r->end) {
        r->err = "unexpected end";
        return 0;
    }
    char c = *r->p;
    if (c == '"') {
        GString *s = read_string(r);
        if (!s)
            return 0;
        g_string_free(s, TRUE);
        return 1;
    }
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        r->p++;
        skip_ws(r);
        if (r->p < r->end && *r->p == close) {
            r->p++;
            return 1;
        }
        for (;;) {
            if (c == '{') {
                skip_ws(r);
                GString *k = read_string(r);
                if (!k)
                    return 0;
                g_string_free(k, TRUE);
                skip_ws(r);
                if (r->p >= r->end || *r->p != ':') {
                    r->err = "expected ':'";
                    return 0;
                }
                r->p++;
            }
            if (!skip_value(r, depth + 1))
                return 0;
            skip_ws(r);
            if (r->p < r->end && *r->p == ',') {
                r->p++;
                continue;
            }
            if (r->p < r->end && *r->p == close) {
                r->p++;
                return 1;
            }
            r->err = "expected ',' or close bracket";
            return 0;
        }
    }
    /* number / true / false / null */
    const char *start = r->p;
    while (r->p < r->end && (g_ascii_isalnum(*r->p) || *r->p == '-' || *r->p == '+' || *r->p == '.'))
        r->p++;
    if (r->p == start) {
        r->err = "unexpected character";
        return 0;
    }
    return 1;
}

#endif
