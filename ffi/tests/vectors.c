/*
 * The cross-language vectors through the C library: every case of
 * tests/vectors/manifest.json (format: tests/vectors/README.md), in manifest
 * order, run through libx12kit, its output compared byte for byte with the
 * expected file, or its failure with the expected code, kind (as the status),
 * JSON pointer (x12kit_error_path) and details (the issues list of render).
 *
 * Usage: vectors <tests/vectors directory> [<number of cases>]
 *   With a number (ffi/tests/run.sh counts the cases independently), the run
 *   fails unless exactly that many cases ran. Prints each failing case id
 *   with what differed, then as its last line:
 *   vectors: N passed, N failed, N skipped
 *
 * The manifest is read by the small JSON reader below (RFC 8259: objects,
 * arrays, strings with every escape, numbers, literals); each value keeps its
 * source text, so a case's `options` reach the library exactly as written,
 * through the *_with_json_options calls and the core's option reader, like
 * every other language. Nothing is skipped: a case the C library could not
 * express would be a failure, not a skip.
 *
 * Run by ffi/tests/run.sh under valgrind --leak-check=full: everything
 * allocated here or by the library is freed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "x12kit.h"

/* ---------------------------------------------------------------- JSON reader */

enum { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT };

typedef struct jv jv;
struct jv {
    int type;
    const char *src; /* the value's JSON text in the manifest */
    size_t src_len;
    int boolean;     /* J_BOOL */
    char *str;       /* J_STRING: decoded UTF-8, NUL-terminated (len bytes) */
    size_t len;      /* J_STRING: bytes; J_ARRAY / J_OBJECT: items */
    char **keys;     /* J_OBJECT: decoded keys, NUL-terminated */
    jv *items;       /* J_ARRAY / J_OBJECT */
};

typedef struct {
    const char *p, *start, *end;
    char error[160];
} jparser;

#define JSON_MAX_DEPTH 64

static void jv_free(jv *v) {
    size_t i;
    if (v == NULL) return;
    free(v->str);
    for (i = 0; i < v->len && (v->type == J_ARRAY || v->type == J_OBJECT); i++) {
        if (v->keys != NULL) free(v->keys[i]);
        jv_free(&v->items[i]);
    }
    free(v->keys);
    free(v->items);
    memset(v, 0, sizeof *v);
}

static int jfail(jparser *ps, const char *what) {
    if (ps->error[0] == '\0')
        snprintf(ps->error, sizeof ps->error, "%s at byte %lu", what, (unsigned long)(ps->p - ps->start));
    return 0;
}

static void jskip(jparser *ps) {
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')) ps->p++;
}

static int hex4(jparser *ps, unsigned long *out) {
    int i;
    *out = 0;
    if (ps->end - ps->p < 4) return jfail(ps, "short \\u escape");
    for (i = 0; i < 4; i++) {
        char c = *ps->p++;
        unsigned d;
        if (c >= '0' && c <= '9') d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') d = (unsigned)(c - 'A' + 10);
        else return jfail(ps, "bad \\u escape");
        *out = *out * 16 + d;
    }
    return 1;
}

/* Parses a string at ps->p (the opening quote) into a new buffer. */
static int jstring(jparser *ps, char **out, size_t *out_len) {
    const char *q;
    char *buf, *w;
    ps->p++; /* " */
    /* Decoded text is never longer than its source. */
    for (q = ps->p; q < ps->end && *q != '"'; q++)
        if (*q == '\\' && q + 1 < ps->end) q++;
    if (q >= ps->end) return jfail(ps, "unterminated string");
    buf = malloc((size_t)(q - ps->p) + 1);
    if (buf == NULL) return jfail(ps, "out of memory");
    w = buf;
    while (*ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p++;
        unsigned long cp;
        if (c < 0x20) { free(buf); return jfail(ps, "control character in a string"); }
        if (c != '\\') { *w++ = (char)c; continue; }
        c = (unsigned char)*ps->p++;
        switch (c) {
        case '"': *w++ = '"'; continue;
        case '\\': *w++ = '\\'; continue;
        case '/': *w++ = '/'; continue;
        case 'b': *w++ = '\b'; continue;
        case 'f': *w++ = '\f'; continue;
        case 'n': *w++ = '\n'; continue;
        case 'r': *w++ = '\r'; continue;
        case 't': *w++ = '\t'; continue;
        case 'u': break;
        default: free(buf); return jfail(ps, "bad escape");
        }
        if (!hex4(ps, &cp)) { free(buf); return 0; }
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            unsigned long lo;
            if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u') {
                free(buf);
                return jfail(ps, "lone high surrogate");
            }
            ps->p += 2;
            if (!hex4(ps, &lo)) { free(buf); return 0; }
            if (lo < 0xDC00 || lo > 0xDFFF) { free(buf); return jfail(ps, "bad low surrogate"); }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            free(buf);
            return jfail(ps, "lone low surrogate");
        }
        /* Six source bytes (\uXXXX) always hold the at most 4 UTF-8 bytes. */
        if (cp < 0x80) {
            *w++ = (char)cp;
        } else if (cp < 0x800) {
            *w++ = (char)(0xC0 | (cp >> 6));
            *w++ = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            *w++ = (char)(0xE0 | (cp >> 12));
            *w++ = (char)(0x80 | ((cp >> 6) & 0x3F));
            *w++ = (char)(0x80 | (cp & 0x3F));
        } else {
            *w++ = (char)(0xF0 | (cp >> 18));
            *w++ = (char)(0x80 | ((cp >> 12) & 0x3F));
            *w++ = (char)(0x80 | ((cp >> 6) & 0x3F));
            *w++ = (char)(0x80 | (cp & 0x3F));
        }
    }
    ps->p++; /* " */
    *w = '\0';
    *out = buf;
    *out_len = (size_t)(w - buf);
    return 1;
}

static int jdigits(jparser *ps) {
    const char *from = ps->p;
    while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') ps->p++;
    return ps->p > from;
}

static int jvalue(jparser *ps, jv *v, int depth);

/* Appends one item to an array or object under construction. */
static jv *jpush(jparser *ps, jv *v, size_t *cap, char *key) {
    if (v->len == *cap) {
        size_t n = *cap ? *cap * 2 : 8;
        jv *items = realloc(v->items, n * sizeof *items);
        if (items == NULL) { free(key); jfail(ps, "out of memory"); return NULL; }
        v->items = items;
        if (v->type == J_OBJECT) {
            char **keys = realloc(v->keys, n * sizeof *keys);
            if (keys == NULL) { free(key); jfail(ps, "out of memory"); return NULL; }
            v->keys = keys;
        }
        *cap = n;
    }
    memset(&v->items[v->len], 0, sizeof v->items[0]);
    if (v->type == J_OBJECT) v->keys[v->len] = key;
    return &v->items[v->len++];
}

static int jcontainer(jparser *ps, jv *v, int depth) {
    size_t cap = 0;
    char close = v->type == J_OBJECT ? '}' : ']';
    ps->p++;
    jskip(ps);
    if (ps->p < ps->end && *ps->p == close) { ps->p++; return 1; }
    for (;;) {
        char *key = NULL;
        size_t key_len;
        jv *item;
        jskip(ps);
        if (v->type == J_OBJECT) {
            if (ps->p >= ps->end || *ps->p != '"') return jfail(ps, "expected a key");
            if (!jstring(ps, &key, &key_len)) return 0;
            jskip(ps);
            if (ps->p >= ps->end || *ps->p != ':') { free(key); return jfail(ps, "expected ':'"); }
            ps->p++;
        }
        item = jpush(ps, v, &cap, key);
        if (item == NULL || !jvalue(ps, item, depth + 1)) return 0;
        jskip(ps);
        if (ps->p < ps->end && *ps->p == ',') { ps->p++; continue; }
        if (ps->p < ps->end && *ps->p == close) { ps->p++; return 1; }
        return jfail(ps, "expected ',' or the end of the container");
    }
}

static int jvalue(jparser *ps, jv *v, int depth) {
    const char *from;
    int ok = 1;
    if (depth > JSON_MAX_DEPTH) return jfail(ps, "nested too deeply");
    jskip(ps);
    if (ps->p >= ps->end) return jfail(ps, "unexpected end");
    from = ps->p;
    switch (*ps->p) {
    case '{': v->type = J_OBJECT; ok = jcontainer(ps, v, depth); break;
    case '[': v->type = J_ARRAY; ok = jcontainer(ps, v, depth); break;
    case '"': v->type = J_STRING; ok = jstring(ps, &v->str, &v->len); break;
    case 't': case 'f': case 'n': {
        static const char *const words[] = {"true", "false", "null"};
        size_t i;
        ok = 0;
        for (i = 0; i < 3; i++) {
            size_t n = strlen(words[i]);
            if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, words[i], n) == 0) {
                v->type = i == 2 ? J_NULL : J_BOOL;
                v->boolean = i == 0;
                ps->p += n;
                ok = 1;
                break;
            }
        }
        if (!ok) jfail(ps, "unknown literal");
        break;
    }
    default:
        v->type = J_NUMBER;
        if (*ps->p == '-') ps->p++;
        if (ps->p < ps->end && *ps->p == '0') ps->p++;
        else if (!jdigits(ps)) return jfail(ps, "unexpected character");
        if (ps->p < ps->end && *ps->p == '.') {
            ps->p++;
            if (!jdigits(ps)) return jfail(ps, "bad fraction");
        }
        if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
            ps->p++;
            if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-')) ps->p++;
            if (!jdigits(ps)) return jfail(ps, "bad exponent");
        }
    }
    v->src = from;
    v->src_len = (size_t)(ps->p - from);
    return ok;
}

static int json_parse(const char *text, size_t len, jv *out, char *error, size_t error_len) {
    jparser ps;
    memset(&ps, 0, sizeof ps);
    memset(out, 0, sizeof *out);
    ps.p = ps.start = text;
    ps.end = text + len;
    if (jvalue(&ps, out, 0)) {
        jskip(&ps);
        if (ps.p == ps.end) return 1;
        jfail(&ps, "trailing characters");
    }
    snprintf(error, error_len, "%s", ps.error);
    jv_free(out);
    return 0;
}

/* The member `key` of an object, or NULL. */
static const jv *jget(const jv *v, const char *key) {
    size_t i;
    if (v == NULL || v->type != J_OBJECT) return NULL;
    for (i = 0; i < v->len; i++)
        if (strcmp(v->keys[i], key) == 0) return &v->items[i];
    return NULL;
}

/* A non-negative integer that fits in 64 bits. */
static int ju64(const jv *v, uint64_t *out) {
    size_t i;
    uint64_t n = 0;
    if (v == NULL || v->type != J_NUMBER || v->src_len == 0) return 0;
    for (i = 0; i < v->src_len; i++) {
        unsigned d = (unsigned)(v->src[i] - '0');
        if (d > 9 || n > (UINT64_MAX - d) / 10) return 0;
        n = n * 10 + d;
    }
    *out = n;
    return 1;
}

/* ------------------------------------------------------------------- files */

typedef struct {
    uint8_t *data;
    size_t len;
} buffer;

static int read_file(const char *path, buffer *b) {
    FILE *f = fopen(path, "rb");
    size_t cap = 0;
    b->data = NULL;
    b->len = 0;
    if (f == NULL) return 0;
    for (;;) {
        size_t n;
        if (b->len == cap) {
            uint8_t *more;
            cap = cap ? cap * 2 : 65536;
            more = realloc(b->data, cap);
            if (more == NULL) break;
            b->data = more;
        }
        n = fread(b->data + b->len, 1, cap - b->len, f);
        b->len += n;
        if (n == 0) {
            int ok = !ferror(f);
            fclose(f);
            if (!ok) { free(b->data); b->data = NULL; b->len = 0; }
            return ok;
        }
    }
    fclose(f);
    free(b->data);
    b->data = NULL;
    b->len = 0;
    return 0;
}

/* ------------------------------------------------------------------- cases */

static const char *dir; /* tests/vectors */
static x12kit_error *err;

/* Why the current case failed (the first reason). */
static char why[2048];

static int fail(const char *fmt, const char *a, const char *b) {
    if (why[0] == '\0') snprintf(why, sizeof why, fmt, a ? a : "(null)", b ? b : "(null)");
    return 0;
}

/* A string argument `args.name`, or NULL (and the case fails). */
static const jv *str_arg(const jv *args, const char *name) {
    const jv *v = jget(args, name);
    if (v == NULL || v->type != J_STRING) {
        fail("args.%s must be a string%s", name, "");
        return NULL;
    }
    return v;
}

/* The bytes of the file `args.name` names, relative to tests/vectors. */
static int file_arg(const jv *args, const char *name, buffer *b) {
    const jv *rel = str_arg(args, name);
    char path[4096];
    if (rel == NULL) return 0;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, rel->str) >= sizeof path)
        return fail("args.%s: path too long: %s", name, rel->str);
    if (!read_file(path, b)) return fail("cannot read %s (args.%s)", path, name);
    return 1;
}

static int u64_arg(const jv *args, const char *name, uint64_t *out) {
    if (!ju64(jget(args, name), out)) return fail("args.%s must be a non-negative integer%s", name, "");
    return 1;
}

/* `body` given inline or as `bodyFile`: *b is then owned by the caller. */
static int body_arg(const jv *args, buffer *b, int *owned) {
    const jv *inline_body;
    *owned = 0;
    if (jget(args, "bodyFile") != NULL) {
        *owned = 1;
        return file_arg(args, "bodyFile", b);
    }
    inline_body = str_arg(args, "body");
    if (inline_body == NULL) return 0;
    b->data = (uint8_t *)inline_body->str;
    b->len = inline_body->len;
    return 1;
}

/* What one call gave. */
typedef struct {
    x12kit_status status;
    x12kit_string out;
    int gives_issues;      /* the call has an issues list (render) */
    x12kit_issues *issues; /* its list, or NULL */
} outcome;

static const char *severity_name(x12kit_severity s) {
    return s == X12KIT_SEVERITY_ERROR ? "error" : s == X12KIT_SEVERITY_WARNING ? "warning" : "?";
}

/* The issues list equals `want` (an array of {severity, code, pointer, message}). */
static int issues_equal(const x12kit_issues *issues, const jv *want, const char *what) {
    size_t n = want ? want->len : 0, i;
    char count[64];
    if (want != NULL && want->type != J_ARRAY) return fail("%s must be an array%s", what, "");
    if (x12kit_issues_count(issues) != n) {
        snprintf(count, sizeof count, "%lu, got %lu", (unsigned long)n, (unsigned long)x12kit_issues_count(issues));
        return fail("%s: expected %s issues", what, count);
    }
    for (i = 0; i < n; i++) {
        const jv *w = &want->items[i];
        const jv *severity = jget(w, "severity"), *code = jget(w, "code");
        const jv *pointer = jget(w, "pointer"), *message = jget(w, "message");
        x12kit_issue got;
        if (!x12kit_issues_get(issues, i, &got)) return fail("%s: x12kit_issues_get failed%s", what, "");
        if (severity == NULL || code == NULL || pointer == NULL || message == NULL || w->len != 4)
            return fail("%s: each must be exactly {severity, code, pointer, message}%s", what, "");
        if (strcmp(severity_name(got.severity), severity->str) != 0)
            return fail("severity: expected %s, got %s", severity->str, severity_name(got.severity));
        if (strcmp(got.code, code->str) != 0) return fail("issue code: expected %s, got %s", code->str, got.code);
        if (strcmp(got.pointer, pointer->str) != 0)
            return fail("issue pointer: expected %s, got %s", pointer->str, got.pointer);
        if (strcmp(got.message, message->str) != 0)
            return fail("issue message: expected \"%s\", got \"%s\"", message->str, got.message);
    }
    return 1;
}

/* The status a failure of this kind has (docs/c.md, "Error codes"). */
static x12kit_status kind_status(const char *kind) {
    if (strcmp(kind, "invalid_input") == 0 || strcmp(kind, "io") == 0) return X12KIT_STATUS_INVALID_INPUT;
    if (strcmp(kind, "rejected") == 0) return X12KIT_STATUS_REJECTED;
    if (strcmp(kind, "internal") == 0) return X12KIT_STATUS_PANIC;
    return X12KIT_STATUS_OK; /* no failure has it: the case fails */
}

/* Runs the case's operation; 0 when its arguments are unusable (why is set). */
static int call(const char *op, const jv *args, const jv *options, outcome *o) {
    /* The options exactly as written in the manifest; NULL = absent = the defaults. */
    const char *opt = options ? options->src : NULL;
    size_t opt_len = options ? options->src_len : 0;
    buffer in = {NULL, 0}, partner = {NULL, 0};
    uint64_t now = 0, timestamp = 0;
    o->status = X12KIT_STATUS_OK;
    if (strcmp(op, "parse") == 0) {
        if (!file_arg(args, "input", &in)) return 0;
        o->status = x12kit_parse_with_json_options(in.data, in.len, opt, opt_len, &o->out, NULL, err);
    } else if (strcmp(op, "validate") == 0) {
        if (!file_arg(args, "input", &in)) return 0;
        o->status = x12kit_validate_with_json_options(in.data, in.len, opt, opt_len, &o->out, NULL, err);
    } else if (strcmp(op, "acknowledge") == 0) {
        if (!file_arg(args, "input", &in) || !u64_arg(args, "now", &now)) { free(in.data); return 0; }
        o->status = x12kit_acknowledge_with_json_options(in.data, in.len, opt, opt_len, now, &o->out, err);
    } else if (strcmp(op, "readAcknowledgement") == 0) {
        if (!file_arg(args, "input", &in)) return 0;
        o->status = x12kit_read_acknowledgement(in.data, in.len, &o->out, err);
    } else if (strcmp(op, "render") == 0) {
        const jv *type = str_arg(args, "documentType");
        if (type == NULL || !u64_arg(args, "now", &now) || !file_arg(args, "payload", &in) ||
            !file_arg(args, "partner", &partner)) {
            free(in.data);
            free(partner.data);
            return 0;
        }
        o->gives_issues = 1;
        o->status = x12kit_render_with_json_options(type->str, type->len, (const char *)in.data, in.len,
                                                    (const char *)partner.data, partner.len, opt, opt_len, now,
                                                    &o->out, &o->issues, err);
        free(partner.data);
    } else if (strcmp(op, "write") == 0) {
        if (!file_arg(args, "input", &in)) return 0;
        o->status = x12kit_write_with_json_options(in.data, in.len, opt, opt_len, &o->out, err);
    } else if (strcmp(op, "documentSchema") == 0) {
        const jv *type = str_arg(args, "documentType");
        if (type == NULL) return 0;
        if (jget(args, "partner") != NULL) {
            /* Narrowed for a partner profile. */
            if (!file_arg(args, "partner", &partner)) return 0;
            o->status = x12kit_document_schema_for_partner(type->str, type->len, (const char *)partner.data,
                                                           partner.len, &o->out, err);
            free(partner.data);
        } else {
            o->status = x12kit_document_schema(type->str, type->len, &o->out, err);
        }
    } else if (strcmp(op, "partnerSchema") == 0) {
        o->status = x12kit_partner_schema(&o->out, err);
    } else if (strcmp(op, "describeSegment") == 0) {
        const jv *set_type = str_arg(args, "setType"), *version = str_arg(args, "version");
        const jv *segment = str_arg(args, "segment");
        if (set_type == NULL || version == NULL || segment == NULL) return 0;
        o->status = x12kit_describe_segment(set_type->str, set_type->len, version->str, version->len, segment->str,
                                            segment->len, &o->out, err);
    } else if (strcmp(op, "payloadsFromCsv") == 0) {
        const jv *type = str_arg(args, "documentType");
        if (type == NULL || !file_arg(args, "input", &in)) return 0;
        o->status = x12kit_payloads_from_csv(type->str, type->len, in.data, in.len, opt, opt_len, &o->out, err);
    } else if (strcmp(op, "split") == 0) {
        if (!file_arg(args, "input", &in)) return 0;
        o->status = x12kit_split(in.data, in.len, opt, opt_len, &o->out, err);
    } else if (strcmp(op, "rebuildPart") == 0) {
        /* The recipe reaches the library as the manifest's JSON text. */
        const jv *recipe = jget(args, "recipe");
        if (recipe == NULL) return fail("args.recipe is missing%s%s", "", "");
        if (!file_arg(args, "input", &in)) return 0;
        o->status = x12kit_rebuild_part(recipe->src, recipe->src_len, in.data, in.len, &o->out, err);
    } else if (strcmp(op, "merge") == 0) {
        const jv *names = jget(args, "inputs");
        buffer *files;
        x12kit_bytes *list;
        size_t i, n;
        char path[4096];
        if (names == NULL || names->type != J_ARRAY) return fail("args.inputs must be an array%s%s", "", "");
        n = names->len;
        files = calloc(n ? n : 1, sizeof *files);
        list = calloc(n ? n : 1, sizeof *list);
        if (files == NULL || list == NULL) { free(files); free(list); return fail("out of memory%s%s", "", ""); }
        for (i = 0; i < n; i++) {
            const jv *rel = &names->items[i];
            if (rel->type != J_STRING || (size_t)snprintf(path, sizeof path, "%s/%s", dir, rel->str) >= sizeof path ||
                !read_file(path, &files[i])) {
                while (i > 0) free(files[--i].data);
                free(files);
                free(list);
                return fail("args.inputs: cannot read %s%s", rel->type == J_STRING ? rel->str : "(not a string)", "");
            }
            list[i].data = files[i].data;
            list[i].len = files[i].len;
        }
        o->status = x12kit_merge(list, n, opt, opt_len, &o->out, err);
        for (i = 0; i < n; i++) free(files[i].data);
        free(files);
        free(list);
    } else if (strcmp(op, "webhookSign") == 0) {
        const jv *secret = str_arg(args, "secret");
        int owned;
        if (secret == NULL || !u64_arg(args, "timestamp", &timestamp) || !body_arg(args, &in, &owned)) return 0;
        o->status = x12kit_webhook_sign((const uint8_t *)secret->str, secret->len, timestamp, in.data, in.len,
                                        &o->out, err);
        if (!owned) in.data = NULL;
    } else if (strcmp(op, "webhookVerify") == 0) {
        const jv *secrets = jget(args, "secrets"), *signature = str_arg(args, "signature");
        const jv *stamp = str_arg(args, "timestamp");
        x12kit_bytes *list;
        size_t i;
        int owned;
        if (secrets == NULL || secrets->type != J_ARRAY) return fail("args.secrets must be an array%s%s", "", "");
        if (signature == NULL || stamp == NULL || !u64_arg(args, "now", &now)) return 0;
        list = calloc(secrets->len ? secrets->len : 1, sizeof *list);
        if (list == NULL) return fail("out of memory%s%s", "", "");
        for (i = 0; i < secrets->len; i++) {
            if (secrets->items[i].type != J_STRING) { free(list); return fail("args.secrets must hold strings%s%s", "", ""); }
            list[i].data = (const uint8_t *)secrets->items[i].str;
            list[i].len = secrets->items[i].len;
        }
        if (!body_arg(args, &in, &owned)) { free(list); return 0; }
        o->status = x12kit_webhook_verify_with_json_options(list, secrets->len, signature->str, signature->len,
                                                            stamp->str, stamp->len, in.data, in.len, opt, opt_len,
                                                            now, NULL, &o->out, err);
        free(list);
        if (!owned) in.data = NULL;
    } else {
        return fail("unknown op %s%s", op, "");
    }
    free(in.data);
    return 1;
}

/* The first offset where two byte strings differ, for the failure message. */
static int output_equal(const x12kit_string *got, const buffer *want, const char *path) {
    size_t i, n = got->len < want->len ? got->len : want->len;
    char detail[256];
    if (got->len == want->len && (n == 0 || memcmp(got->data, want->data, n) == 0)) return 1;
    for (i = 0; i < n && (uint8_t)got->data[i] == want->data[i]; i++) {
    }
    snprintf(detail, sizeof detail, "%lu bytes, got %lu; first difference at byte %lu", (unsigned long)want->len,
             (unsigned long)got->len, (unsigned long)i);
    return fail("output differs from %s: expected %s", path, detail);
}

/* A call without an issues list (validate, acknowledge: an unusable guide)
 * gives its problems in the message, one line each after the first:
 * "\n  CODE /pointer: message" (warnings "\n  warning CODE ..."), in order. */
static int details_in_message(const jv *want) {
    const char *msg = x12kit_error_message(err), *at = msg;
    size_t i, n;
    char *line;
    if (want->type != J_ARRAY) return fail("details must be an array%s%s", "", "");
    for (i = 0; i < want->len; i++) {
        const jv *w = &want->items[i];
        const jv *severity = jget(w, "severity"), *code = jget(w, "code");
        const jv *pointer = jget(w, "pointer"), *message = jget(w, "message");
        const char *found;
        if (severity == NULL || code == NULL || pointer == NULL || message == NULL || w->len != 4)
            return fail("details: each must be exactly {severity, code, pointer, message}%s%s", "", "");
        n = strlen(code->str) + pointer->len + message->len + 32;
        line = malloc(n);
        if (line == NULL) return fail("out of memory%s%s", "", "");
        snprintf(line, n, "\n  %s%s %s: %s", strcmp(severity->str, "warning") == 0 ? "warning " : "", code->str,
                 pointer->str, message->str);
        found = strstr(at, line);
        if (found == NULL) {
            fail("details: the message does not have the line \"%s\" (in order)%s", line + 3, "");
            free(line);
            return 0;
        }
        at = found + strlen(line);
        free(line);
    }
    if (strstr(at, "\n  ") != NULL) return fail("details: the message has more problems than expected%s%s", "", "");
    return 1;
}

static int check_error(const jv *want, const outcome *o) {
    const jv *code = jget(want, "code"), *kind = jget(want, "kind");
    const jv *pointer = jget(want, "pointer"), *details = jget(want, "details");
    const char *path = x12kit_error_path(err);
    char status[64];
    size_t i;
    for (i = 0; i < want->len; i++)
        if (strcmp(want->keys[i], "code") && strcmp(want->keys[i], "kind") && strcmp(want->keys[i], "pointer") &&
            strcmp(want->keys[i], "details"))
            return fail("error.%s: not a field of an error block%s", want->keys[i], "");
    if (code == NULL || code->type != J_STRING || kind == NULL || kind->type != J_STRING)
        return fail("the error block needs code and kind%s%s", "", "");
    if (o->status == X12KIT_STATUS_OK) return fail("succeeded; expected %s (%s)", code->str, kind->str);
    if (strcmp(x12kit_error_code(err), code->str) != 0)
        return fail("code: expected %s, got %s", code->str, x12kit_error_code(err));
    if (o->status != kind_status(kind->str) || x12kit_error_status(err) != o->status) {
        snprintf(status, sizeof status, "status %d", (int)o->status);
        return fail("kind %s: got %s", kind->str, status);
    }
    if (pointer != NULL && (path == NULL || strcmp(path, pointer->str) != 0))
        return fail("pointer: expected %s, got %s", pointer->str, path);
    if (pointer == NULL && path != NULL) return fail("pointer: expected none, got %s%s", path, "");
    if (details != NULL) {
        if (!o->gives_issues) return details_in_message(details);
        return issues_equal(o->issues, details, "details");
    }
    if (o->issues != NULL) {
        /* An error without details is given as one issue: its code at its pointer. */
        x12kit_issue only;
        if (x12kit_issues_count(o->issues) != 1 || !x12kit_issues_get(o->issues, 0, &only) ||
            only.severity != X12KIT_SEVERITY_ERROR || strcmp(only.code, code->str) != 0 ||
            strcmp(only.pointer, pointer ? pointer->str : "/") != 0)
            return fail("details: expected none (the one issue %s at its pointer)%s, got other issues", code->str, "");
    }
    return 1;
}

static const char *const CASE_KEYS[] = {"id", "op", "note", "args", "options", "expect", "warnings", "error"};

static int run_case(const jv *c) {
    const jv *op = jget(c, "op"), *args = jget(c, "args"), *options = jget(c, "options");
    const jv *expect = jget(c, "expect"), *error = jget(c, "error"), *warnings = jget(c, "warnings");
    outcome o;
    int ok;
    size_t i, k;
    for (i = 0; i < c->len; i++) {
        for (k = 0; k < sizeof CASE_KEYS / sizeof CASE_KEYS[0] && strcmp(c->keys[i], CASE_KEYS[k]) != 0; k++) {
        }
        if (k == sizeof CASE_KEYS / sizeof CASE_KEYS[0]) return fail("unknown key \"%s\" in the case%s", c->keys[i], "");
    }
    if (op == NULL || op->type != J_STRING) return fail("the case has no op%s%s", "", "");
    if (args == NULL || args->type != J_OBJECT) return fail("the case has no args object%s%s", "", "");
    if ((expect == NULL) == (error == NULL)) return fail("the case needs exactly one of expect and error%s%s", "", "");
    if (expect != NULL && expect->type != J_STRING) return fail("expect must be a path%s%s", "", "");
    if (error != NULL && error->type != J_OBJECT) return fail("error must be an object%s%s", "", "");
    memset(&o, 0, sizeof o);
    if (!call(op->str, args, options, &o)) return 0;
    if (expect != NULL) {
        buffer want;
        char path[4096];
        ok = 1;
        if (o.status != X12KIT_STATUS_OK) {
            ok = fail("failed with %s: %s", x12kit_error_code(err), x12kit_error_message(err));
        } else if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, expect->str) >= sizeof path ||
                   !read_file(path, &want)) {
            ok = fail("cannot read the expected file %s%s", expect->str, "");
        } else {
            ok = output_equal(&o.out, &want, expect->str);
            free(want.data);
            if (ok && o.gives_issues) ok = issues_equal(o.issues, warnings, "warnings");
            if (ok && !o.gives_issues && warnings != NULL)
                ok = fail("warnings expected, but this C call has no issues list%s%s", "", "");
        }
    } else {
        ok = check_error(error, &o);
    }
    x12kit_string_free(&o.out);
    x12kit_issues_free(o.issues);
    return ok;
}

int main(int argc, char **argv) {
    char path[4096], error[200];
    buffer text;
    jv manifest;
    const jv *cases, *version;
    long expected_count = -1;
    unsigned long passed = 0, failed = 0;
    size_t i;
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s <tests/vectors directory> [<number of cases>]\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    if (argc == 3) expected_count = strtol(argv[2], NULL, 10);
    snprintf(path, sizeof path, "%s/manifest.json", dir);
    if (!read_file(path, &text)) {
        fprintf(stderr, "cannot read %s\n", path);
        return 2;
    }
    if (!json_parse((const char *)text.data, text.len, &manifest, error, sizeof error)) {
        fprintf(stderr, "%s is not JSON: %s\n", path, error);
        free(text.data);
        return 2;
    }
    cases = jget(&manifest, "cases");
    version = jget(&manifest, "version");
    if (cases == NULL || cases->type != J_ARRAY || version == NULL || version->src_len != 1 || version->src[0] != '1') {
        fprintf(stderr, "%s: expected {\"version\": 1, \"cases\": [...]}\n", path);
        jv_free(&manifest);
        free(text.data);
        return 2;
    }
    err = x12kit_error_new();
    if (err == NULL) return 2;
    for (i = 0; i < cases->len; i++) {
        const jv *c = &cases->items[i], *id = jget(c, "id");
        why[0] = '\0';
        if (c->type == J_OBJECT && run_case(c)) {
            passed++;
        } else {
            failed++;
            fprintf(stderr, "FAIL %s: %s\n", id && id->type == J_STRING ? id->str : "(case without id)",
                    why[0] ? why : "not an object");
        }
    }
    x12kit_error_free(err);
    printf("vectors: ran %lu cases of %s through libx12kit %s\n", (unsigned long)cases->len, path, x12kit_version());
    if (expected_count >= 0 && (unsigned long)expected_count != (unsigned long)cases->len) {
        fprintf(stderr, "vectors: the manifest has %ld cases (counted by ffi/tests/run.sh), %lu ran\n",
                expected_count, (unsigned long)cases->len);
        failed += (unsigned long)(expected_count > (long)cases->len ? expected_count - (long)cases->len : 1);
    }
    jv_free(&manifest);
    free(text.data);
    printf("vectors: %lu passed, %lu failed, 0 skipped\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
