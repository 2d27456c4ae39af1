/*
 * C test suite of libx12kit: success paths, every error path, NULL and
 * garbage inputs. Run by ffi/tests/run.sh (CI: scripts/test.sh) against the
 * shared and the static library, under valgrind --leak-check=full.
 *
 * Every test frees everything it gets, so a leak or an invalid access in the
 * library or in the documented ownership rules fails the run.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "x12kit.h"

#ifndef X12KIT_EXPECTED_VERSION
#error "compile with -DX12KIT_EXPECTED_VERSION=\"x.y.z\" (ffi/tests/run.sh does)"
#endif

static int checks, failures;

#define CHECK(cond)                                                              \
    do {                                                                         \
        checks++;                                                                \
        if (!(cond)) {                                                           \
            failures++;                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                        \
    } while (0)

/* The call returned `status` and left `code` in err. */
#define CHECK_FAIL(call, status, code)                                           \
    do {                                                                         \
        x12kit_status got_ = (call);                                             \
        checks++;                                                                \
        if (got_ != (status) || strcmp(x12kit_error_code(err), (code)) != 0 ||   \
            x12kit_error_status(err) != (status)) {                              \
            failures++;                                                          \
            fprintf(stderr, "%s:%d: expected %s/%s, got %d/%s: %s\n", __FILE__,  \
                    __LINE__, #status, code, (int)got_, x12kit_error_code(err),  \
                    x12kit_error_message(err));                                  \
        }                                                                        \
    } while (0)

#define CHECK_OK(call)                                                           \
    do {                                                                         \
        x12kit_status got_ = (call);                                             \
        checks++;                                                                \
        if (got_ != X12KIT_STATUS_OK) {                                          \
            failures++;                                                          \
            fprintf(stderr, "%s:%d: expected OK, got %d/%s: %s\n", __FILE__,     \
                    __LINE__, (int)got_, x12kit_error_code(err),                 \
                    x12kit_error_message(err));                                  \
        }                                                                        \
    } while (0)

static const char SAMPLE[] =
    "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       "
    "*230101*1200*^*00501*000000001*0*T*:~\n"
    "GS*PO*S*R*20230101*1200*1*X*005010~\n"
    "ST*850*0001~\n"
    "BEG*00*SA*PO1**20230101~\n"
    "REF*ZZ*A:B^C:D~\n"
    "SE*4*0001~\n"
    "GE*1*1~\n"
    "IEA*1*000000001~\n";
#define SAMPLE_LEN (sizeof SAMPLE - 1)

static x12kit_error *err;

static int bytes_eq(const uint8_t *data, size_t len, const char *text) {
    return len == strlen(text) && (len == 0 || memcmp(data, text, len) == 0);
}

static int starts_with(const char *s, const char *prefix) {
    return s != NULL && strncmp(s, prefix, strlen(prefix)) == 0;
}

static int str_eq(const x12kit_string *s, const char *text) {
    return s->data != NULL && bytes_eq((const uint8_t *)s->data, s->len, text);
}

/* A malloc'd copy of `s` with the first `from` replaced by `to` (NULL if absent). */
static char *replace(const char *s, const char *from, const char *to) {
    const char *at = strstr(s, from);
    if (at == NULL) return NULL;
    size_t head = (size_t)(at - s), from_len = strlen(from), to_len = strlen(to);
    size_t len = strlen(s) - from_len + to_len;
    char *out = malloc(len + 1);
    if (out == NULL) abort();
    memcpy(out, s, head);
    memcpy(out + head, to, to_len);
    strcpy(out + head + to_len, at + from_len);
    return out;
}

static x12kit_string parse_json(const char *x12, size_t len) {
    x12kit_string json = {0};
    CHECK_OK(x12kit_parse((const uint8_t *)x12, len, &json, NULL, err));
    return json;
}

/* ---------------------------------------------------------------- split, part recipes */

/* Splits SAMPLE, keeps the part's recipe, reads the recipe's ranges out of
 * SAMPLE and makes the part again: the JSON of the split's part, byte for
 * byte. Then the errors of x12kit_rebuild_part. */
static void test_split_and_rebuild_part(void) {
    x12kit_string split = {0}, part = {0};
    const char *recipe, *end, *p;
    char *stop;
    uint8_t bytes[sizeof SAMPLE];
    size_t recipe_len, n = 0, part_len;
    int depth = 0;
    CHECK_OK(x12kit_split((const uint8_t *)SAMPLE, SAMPLE_LEN, NULL, 0, &split, err));
    CHECK(starts_with(split.data, "{\"parts\":[{\"interchangeControlNumber\""));
    recipe = strstr(split.data, "\"recipe\":");
    CHECK(recipe != NULL);
    if (recipe == NULL) {
        x12kit_string_free(&split);
        return;
    }
    recipe += strlen("\"recipe\":");
    for (end = recipe; *end != '\0'; end++) {
        if (*end == '{') depth++;
        if (*end == '}' && --depth == 0) break;
    }
    recipe_len = (size_t)(end - recipe) + 1;
    /* "ranges":[[a,b],[c,d],...]: copy each range of SAMPLE. */
    p = strstr(recipe, "\"ranges\":[") + strlen("\"ranges\":[");
    while (*p == '[') {
        unsigned long a = strtoul(p + 1, &stop, 10), b = strtoul(stop + 1, &stop, 10);
        CHECK(a <= b && b <= SAMPLE_LEN);
        if (a > b || b > SAMPLE_LEN) break;
        memcpy(bytes + n, SAMPLE + a, b - a);
        n += b - a;
        p = stop + 1;
        if (*p == ',') p++;
    }
    CHECK(n == SAMPLE_LEN); /* one part of the whole sample */
    CHECK_OK(x12kit_rebuild_part(recipe, recipe_len, bytes, n, &part, err));
    /* The split's part: from after "{\"parts\":[" to before "],\"diagnostics\"". */
    part_len = (size_t)(strstr(split.data, "],\"diagnostics\"") - split.data) - strlen("{\"parts\":[");
    CHECK(part.len == part_len && memcmp(part.data, split.data + strlen("{\"parts\":["), part_len) == 0);
    x12kit_string_free(&part);

    CHECK_FAIL(x12kit_rebuild_part(recipe, recipe_len, bytes, n - 1, &part, err), X12KIT_STATUS_INVALID_INPUT,
               "INVALID_ARGUMENT");
    CHECK(part.data == NULL && part.len == 0);
    bytes[0] = 'X';
    CHECK_FAIL(x12kit_rebuild_part(recipe, recipe_len, bytes, n, &part, err), X12KIT_STATUS_INVALID_INPUT,
               "INVALID_ARGUMENT");
    CHECK_FAIL(x12kit_rebuild_part("{\"ranges\":", 10, bytes, n, &part, err), X12KIT_STATUS_INVALID_INPUT,
               "INVALID_OPTIONS");
    CHECK(x12kit_error_path(err) != NULL && strcmp(x12kit_error_path(err), "/recipe") == 0);
    CHECK_FAIL(x12kit_rebuild_part("{\"ranges\":[[0,1]],\"setsRange\":0,\"sets\":1,\"segment\":2,\"extra\":1}", 63,
                                   bytes, n, &part, err),
               X12KIT_STATUS_INVALID_INPUT, "INVALID_OPTIONS");
    CHECK(x12kit_error_path(err) != NULL && strcmp(x12kit_error_path(err), "/recipe/extra") == 0);
    CHECK_FAIL(x12kit_rebuild_part(NULL, 0, bytes, n, &part, err), X12KIT_STATUS_INVALID_INPUT, "INVALID_OPTIONS");
    CHECK_FAIL(x12kit_rebuild_part("\xff", 1, bytes, n, &part, err), X12KIT_STATUS_INVALID_UTF8, "INVALID_UTF8");
    CHECK_FAIL(x12kit_rebuild_part(recipe, recipe_len, NULL, 5, &part, err), X12KIT_STATUS_NULL_POINTER,
               "NULL_POINTER");
    CHECK_FAIL(x12kit_rebuild_part(recipe, recipe_len, bytes, n, NULL, err), X12KIT_STATUS_NULL_POINTER,
               "NULL_POINTER");
    x12kit_string_free(&split);
}

/* ---------------------------------------------------------------- basics */

static void test_version(void) {
    const char *v = x12kit_version();
    CHECK(v != NULL);
    CHECK(strcmp(v, X12KIT_EXPECTED_VERSION) == 0);
}

static void test_error_object(void) {
    x12kit_error *e = x12kit_error_new();
    CHECK(e != NULL);
    CHECK(x12kit_error_status(e) == X12KIT_STATUS_OK);
    CHECK(strcmp(x12kit_error_code(e), "OK") == 0);
    CHECK(strcmp(x12kit_error_message(e), "") == 0);
    CHECK(x12kit_error_path(e) == NULL);
    x12kit_error_free(e);

    /* A NULL error object is allowed everywhere. */
    CHECK(x12kit_error_status(NULL) == X12KIT_STATUS_NULL_POINTER);
    CHECK(strcmp(x12kit_error_code(NULL), "NULL_POINTER") == 0);
    CHECK(strlen(x12kit_error_message(NULL)) > 0);
    CHECK(x12kit_error_path(NULL) == NULL);
    x12kit_error_free(NULL);
    CHECK(x12kit_parse(NULL, 1, NULL, NULL, NULL) == X12KIT_STATUS_NULL_POINTER);

    /* A success leaves the previous failure in place. */
    x12kit_string s = {0};
    CHECK_FAIL(x12kit_write(NULL, 1, NULL, 0, &s, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK(strstr(x12kit_error_message(err), "json") != NULL);
    CHECK_OK(x12kit_webhook_sign((const uint8_t *)"k", 1, 1, NULL, 0, &s, err));
    CHECK(strcmp(x12kit_error_code(err), "NULL_POINTER") == 0);
    x12kit_string_free(&s);
}

static void test_string_free(void) {
    x12kit_string zero = {0};
    x12kit_string_free(&zero);
    x12kit_string_free(NULL);
    x12kit_string s = parse_json(SAMPLE, SAMPLE_LEN);
    CHECK(s.data != NULL && s.data[s.len] == '\0');
    CHECK(strlen(s.data) == s.len);
    x12kit_string_free(&s);
    CHECK(s.data == NULL && s.len == 0);
    x12kit_string_free(&s); /* freeing twice through the struct is harmless */
}

/* ------------------------------------------------------------ parse/write */

static void test_parse_and_write_round_trip(void) {
    x12kit_string json = {0};
    x12kit_diagnostics *diags = NULL;
    CHECK_OK(x12kit_parse((const uint8_t *)SAMPLE, SAMPLE_LEN, &json, &diags, err));
    CHECK(starts_with(json.data, "{\"interchanges\":[{"));
    CHECK(strstr(json.data, "{\"id\":\"REF\",\"elements\":[\"ZZ\",{\"repeat\":[[\"A\",\"B\"],[\"C\",\"D\"]]}]}") != NULL);
    CHECK(strstr(json.data, "\"diagnostics\":[]}") != NULL);
    CHECK(x12kit_diagnostics_count(diags) == 0);
    CHECK(x12kit_diagnostics_error_count(diags) == 0);
    x12kit_diagnostic d;
    CHECK(!x12kit_diagnostics_get(diags, 0, &d));

    x12kit_string x12 = {0};
    CHECK_OK(x12kit_write(json.data, json.len, NULL, 0, &x12, err));
    CHECK(x12.len == SAMPLE_LEN && memcmp(x12.data, SAMPLE, SAMPLE_LEN) == 0);
    x12kit_string_free(&x12);

    /* Line breaks normalised on request: CRLF, and none at all. */
    CHECK_OK(x12kit_write(json.data, json.len, "\r\n", 2, &x12, err));
    CHECK(strstr(x12.data, "~\r\nGS*") != NULL && strstr(x12.data, "IEA*1*000000001~\r\n") != NULL);
    x12kit_string_free(&x12);
    CHECK_OK(x12kit_write(json.data, json.len, "", 0, &x12, err));
    CHECK(strchr(x12.data, '\n') == NULL && x12.len == SAMPLE_LEN - 8);
    x12kit_string_free(&x12);

    /* Only one of the two outputs. */
    x12kit_diagnostics_free(diags);
    diags = NULL;
    CHECK_OK(x12kit_parse((const uint8_t *)SAMPLE, SAMPLE_LEN, NULL, &diags, err));
    CHECK(diags != NULL && x12kit_diagnostics_count(diags) == 0);
    x12kit_diagnostics_free(diags);
    x12kit_string_free(&json);
}

static void check_diagnostic(const char *x12, size_t len, size_t i, const char *code,
                             x12kit_severity severity, size_t segment_index,
                             const char *segment_id, size_t offset) {
    x12kit_diagnostics *diags = NULL;
    x12kit_diagnostic d;
    CHECK_OK(x12kit_parse((const uint8_t *)x12, len, NULL, &diags, err));
    CHECK(x12kit_diagnostics_get(diags, i, &d));
    if (x12kit_diagnostics_get(diags, i, &d)) {
        CHECK(strcmp(d.code, code) == 0);
        CHECK(d.severity == severity);
        CHECK(strlen(d.message) > 10);
        CHECK(d.segment_index == segment_index);
        CHECK(segment_id == NULL ? d.segment_id == NULL
                                 : d.segment_id != NULL && strcmp(d.segment_id, segment_id) == 0);
        CHECK(d.offset == offset);
        if (strcmp(d.code, code) != 0) fprintf(stderr, "  got %s: %s\n", d.code, d.message);
    }
    x12kit_diagnostics_free(diags);
}

static void test_parse_diagnostics(void) {
    check_diagnostic("hello world", 11, 0, "NOT_X12", X12KIT_SEVERITY_ERROR, X12KIT_NONE, NULL, 0);
    check_diagnostic(NULL, 0, 0, "NOT_X12", X12KIT_SEVERITY_ERROR, X12KIT_NONE, NULL, 0);
    check_diagnostic("{\"a\": 1}", 8, 0, "NOT_X12", X12KIT_SEVERITY_ERROR, X12KIT_NONE, NULL, 0);

    /* A bad segment identifier, then a missing SE. */
    char *bad = replace(SAMPLE, "BEG*", "beg*");
    check_diagnostic(bad, strlen(bad), 0, "SEGMENT_ID", X12KIT_SEVERITY_ERROR, 3, "beg", 156);
    free(bad);
    char *no_se = replace(SAMPLE, "SE*4*0001~\n", "");
    x12kit_diagnostics *diags = NULL;
    CHECK_OK(x12kit_parse((const uint8_t *)no_se, strlen(no_se), NULL, &diags, err));
    CHECK(x12kit_diagnostics_error_count(diags) >= 1);
    int found = 0;
    for (size_t i = 0; i < x12kit_diagnostics_count(diags); i++) {
        x12kit_diagnostic d;
        CHECK(x12kit_diagnostics_get(diags, i, &d));
        if (strcmp(d.code, "SE_MISSING") == 0) found = 1;
    }
    CHECK(found);
    x12kit_diagnostic d;
    CHECK(!x12kit_diagnostics_get(diags, x12kit_diagnostics_count(diags), &d));
    CHECK(!x12kit_diagnostics_get(diags, 0, NULL));
    CHECK(!x12kit_diagnostics_get(NULL, 0, &d));
    x12kit_diagnostics_free(diags);
    free(no_se);

    /* A BOM is a warning. */
    char bom[sizeof SAMPLE + 3] = "\xEF\xBB\xBF";
    memcpy(bom + 3, SAMPLE, sizeof SAMPLE);
    check_diagnostic(bom, SAMPLE_LEN + 3, 0, "BOM", X12KIT_SEVERITY_WARNING, X12KIT_NONE, NULL, 0);

    CHECK(x12kit_diagnostics_count(NULL) == 0);
    CHECK(x12kit_diagnostics_error_count(NULL) == 0);
    x12kit_diagnostics_free(NULL);
}

static void test_parse_errors(void) {
    x12kit_string json = {0};
    x12kit_diagnostics *diags = (x12kit_diagnostics *)&json; /* must be reset to NULL */
    CHECK_FAIL(x12kit_parse((const uint8_t *)SAMPLE, SAMPLE_LEN, NULL, NULL, err),
               X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK_FAIL(x12kit_parse(NULL, 5, &json, &diags, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK(json.data == NULL && json.len == 0 && diags == NULL);
    CHECK(strstr(x12kit_error_message(err), "input") != NULL);
    CHECK_FAIL(x12kit_parse((const uint8_t *)SAMPLE, SIZE_MAX, &json, NULL, err),
               X12KIT_STATUS_INVALID_ARGUMENT, "INVALID_ARGUMENT");
    CHECK_FAIL(x12kit_parse((const uint8_t *)SAMPLE, (size_t)PTRDIFF_MAX + 1, &json, NULL, err),
               X12KIT_STATUS_INVALID_ARGUMENT, "INVALID_ARGUMENT");
    CHECK(json.data == NULL);
}

static void test_write_errors(void) {
    x12kit_string json = parse_json(SAMPLE, SAMPLE_LEN);
    x12kit_string out = {0};

    CHECK_FAIL(x12kit_write("{", 1, NULL, 0, &out, err), X12KIT_STATUS_INVALID_INPUT, "INVALID_JSON");
    CHECK(out.data == NULL && x12kit_error_path(err) == NULL);
    CHECK_FAIL(x12kit_write("", 0, NULL, 0, &out, err), X12KIT_STATUS_INVALID_INPUT, "INVALID_JSON");
    CHECK_FAIL(x12kit_write(NULL, 0, NULL, 0, &out, err), X12KIT_STATUS_INVALID_INPUT, "INVALID_JSON");

    const char *shape = "{\"interchanges\":5}";
    CHECK_FAIL(x12kit_write(shape, strlen(shape), NULL, 0, &out, err),
               X12KIT_STATUS_INVALID_INPUT, "INVALID_PARSE_RESULT");
    CHECK(x12kit_error_path(err) != NULL && strcmp(x12kit_error_path(err), "/interchanges") == 0);

    char *delims = replace(json.data, "\"element\":\"*\"", "\"element\":\"A\"");
    CHECK(delims != NULL);
    CHECK_FAIL(x12kit_write(delims, strlen(delims), NULL, 0, &out, err),
               X12KIT_STATUS_INVALID_INPUT, "INVALID_DELIMITERS");
    CHECK(x12kit_error_path(err) != NULL);
    free(delims);

    char *value = replace(json.data, "\"PO1\"", "\"P*1\"");
    CHECK(value != NULL);
    CHECK_FAIL(x12kit_write(value, strlen(value), NULL, 0, &out, err),
               X12KIT_STATUS_REJECTED, "CONTAINS_DELIMITER");
    const char *path = x12kit_error_path(err);
    CHECK(path != NULL && strcmp(path, "/interchanges/0/groups/0/transactions/0/segments/0/elements/2") == 0);
    CHECK(strlen(x12kit_error_message(err)) > 10);
    free(value);

    /* Text arguments must be UTF-8. */
    CHECK_FAIL(x12kit_write("\"\xff\"", 3, NULL, 0, &out, err), X12KIT_STATUS_INVALID_UTF8, "INVALID_UTF8");
    CHECK_FAIL(x12kit_write(json.data, json.len, "\xc3", 1, &out, err), X12KIT_STATUS_INVALID_UTF8,
               "INVALID_UTF8");
    CHECK(strstr(x12kit_error_message(err), "line_break") != NULL);

    /* NULL and impossible lengths. */
    CHECK_FAIL(x12kit_write(json.data, json.len, NULL, 0, NULL, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK_FAIL(x12kit_write(NULL, 3, NULL, 0, &out, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK_FAIL(x12kit_write(json.data, SIZE_MAX, NULL, 0, &out, err), X12KIT_STATUS_INVALID_ARGUMENT,
               "INVALID_ARGUMENT");
    CHECK_FAIL(x12kit_write(json.data, json.len, "\n", SIZE_MAX - 1, &out, err),
               X12KIT_STATUS_INVALID_ARGUMENT, "INVALID_ARGUMENT");
    CHECK(out.data == NULL);
    x12kit_string_free(&json);
}

/* -------------------------------------------------------- validate / ack */

/* SAMPLE with 2-15 character GS02/GS03, so that it validates clean. */
static char *valid_sample(void) { return replace(SAMPLE, "GS*PO*S*R*", "GS*PO*SENDER*RECEIVER*"); }

static void test_validate(void) {
    char *ok = valid_sample();
    x12kit_string json = {0};
    x12kit_diagnostics *diags = NULL;
    CHECK_OK(x12kit_validate((const uint8_t *)ok, strlen(ok), &json, &diags, err));
    CHECK(starts_with(json.data, "{\"valid\":true,\"errorCount\":0,"));
    CHECK(x12kit_diagnostics_count(diags) == 0);
    x12kit_string_free(&json);
    x12kit_diagnostics_free(diags);

    /* SE01 off by one: one error, where it is, with its ack code in the JSON. */
    char *bad = replace(ok, "SE*4*0001", "SE*5*0001");
    CHECK_OK(x12kit_validate((const uint8_t *)bad, strlen(bad), &json, &diags, err));
    CHECK(starts_with(json.data, "{\"valid\":false,\"errorCount\":1,"));
    CHECK(json.data != NULL && strstr(json.data, "\"ack\":{\"ik5\":\"4\"}") != NULL);
    CHECK(x12kit_diagnostics_count(diags) == 1 && x12kit_diagnostics_error_count(diags) == 1);
    x12kit_diagnostic d;
    CHECK(x12kit_diagnostics_get(diags, 0, &d));
    CHECK(strcmp(d.code, "SE01_COUNT") == 0 && d.segment_index == 5 && strcmp(d.segment_id, "SE") == 0);
    CHECK(d.element == 1 && strstr(d.message, "SE01") != NULL);
    x12kit_string_free(&json);
    x12kit_diagnostics_free(diags);

    /* The parser's findings are validation diagnostics too. */
    diags = NULL;
    CHECK_OK(x12kit_validate((const uint8_t *)"not x12", 7, NULL, &diags, err));
    CHECK(x12kit_diagnostics_get(diags, 0, &d) && strcmp(d.code, "NOT_X12") == 0);
    x12kit_diagnostics_free(diags);

    x12kit_diagnostics *untouched = (x12kit_diagnostics *)&json;
    CHECK_FAIL(x12kit_validate((const uint8_t *)ok, strlen(ok), NULL, NULL, err), X12KIT_STATUS_NULL_POINTER,
               "NULL_POINTER");
    CHECK_FAIL(x12kit_validate(NULL, 2, &json, &untouched, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK(json.data == NULL && untouched == NULL);
    CHECK_FAIL(x12kit_validate((const uint8_t *)ok, SIZE_MAX, &json, NULL, err), X12KIT_STATUS_INVALID_ARGUMENT,
               "INVALID_ARGUMENT");
    free(bad);
    free(ok);
}

static void test_acknowledge(void) {
    char *ok = valid_sample();
    x12kit_string ack = {0};
    /* 2023-11-14 22:13:20 UTC; envelope rules only (the sample 850 has no PO1
       loop: test_structure_rules covers what the structure rules add). */
    x12kit_ack_options options = {X12KIT_ACK_KIND_FA999, 5, 6, 7, false, NULL, 1700000000, NULL, 0, true};
    CHECK_OK(x12kit_acknowledge((const uint8_t *)ok, strlen(ok), &options, &ack, err));
    CHECK(starts_with(ack.data, "ISA*00*          *00*          *ZZ*RECEIVER       *ZZ*SENDER "));
    CHECK(ack.data != NULL && strstr(ack.data, "*231114*2213*^*00501*000000005*0*T*:~\n") != NULL);
    CHECK(ack.data != NULL && strstr(ack.data, "\nGS*FA*RECEIVER*SENDER*20231114*2213*6*X*005010X231A1~\n") != NULL);
    CHECK(ack.data != NULL && strstr(ack.data, "\nST*999*0007*005010X231A1~\nAK1*PO*1*005010~\nAK2*850*0001~\nIK5*A~\n") != NULL);
    CHECK(ack.data != NULL && strstr(ack.data, "TA1*") == NULL);
    /* What x12kit acknowledges validates clean. */
    x12kit_diagnostics *diags = NULL;
    CHECK_OK(x12kit_validate((const uint8_t *)ack.data, ack.len, NULL, &diags, err));
    CHECK(x12kit_diagnostics_count(diags) == 0);
    x12kit_diagnostics_free(diags);
    x12kit_string_free(&ack);

    /* TA1 only, other delimiters and CRLF; and the defaults. */
    x12kit_delimiters pipes = {'|', '>', '!', true, '~'};
    x12kit_ack_options ta1 = {X12KIT_ACK_KIND_TA1, 9, 9, 9, true, &pipes, 1700000000, "\r\n", 2, false};
    CHECK_OK(x12kit_acknowledge((const uint8_t *)ok, strlen(ok), &ta1, &ack, err));
    CHECK(ack.data != NULL && strstr(ack.data, "~\r\nTA1|000000001|230101|1200|A|000~\r\nIEA|0|000000009~\r\n") != NULL);
    x12kit_string_free(&ack);
    CHECK_OK(x12kit_acknowledge((const uint8_t *)ok, strlen(ok), NULL, &ack, err));
    CHECK(ack.data != NULL && strstr(ack.data, "\nST*999*0001*") != NULL);
    x12kit_string_free(&ack);
    /* Nothing to acknowledge: an empty result. */
    x12kit_ack_options fa = {X12KIT_ACK_KIND_FA997, 1, 1, 1, false, NULL, 1700000000, NULL, 0, false};
    CHECK_OK(x12kit_acknowledge((const uint8_t *)"junk", 4, &fa, &ack, err));
    CHECK(ack.data != NULL && ack.len == 0);
    x12kit_string_free(&ack);

    /* Errors. */
    x12kit_ack_options o = options;
    o.kind = 9;
    CHECK_FAIL(x12kit_acknowledge((const uint8_t *)ok, strlen(ok), &o, &ack, err), X12KIT_STATUS_INVALID_ARGUMENT,
               "INVALID_ARGUMENT");
    o = options;
    o.interchange_control_number = 10000000000u;
    CHECK_FAIL(x12kit_acknowledge((const uint8_t *)ok, strlen(ok), &o, &ack, err), X12KIT_STATUS_INVALID_INPUT,
               "INVALID_OPTIONS");
    CHECK(x12kit_error_path(err) != NULL && strcmp(x12kit_error_path(err), "/interchangeControlNumber") == 0);
    x12kit_delimiters letters = {'A', '>', '!', true, '~'};
    o = options;
    o.delimiters = &letters;
    CHECK_FAIL(x12kit_acknowledge((const uint8_t *)ok, strlen(ok), &o, &ack, err), X12KIT_STATUS_INVALID_INPUT,
               "INVALID_DELIMITERS");
    o = options;
    o.line_break = "\xff";
    o.line_break_len = 1;
    CHECK_FAIL(x12kit_acknowledge((const uint8_t *)ok, strlen(ok), &o, &ack, err), X12KIT_STATUS_INVALID_UTF8,
               "INVALID_UTF8");
    o.line_break_len = SIZE_MAX;
    CHECK_FAIL(x12kit_acknowledge((const uint8_t *)ok, strlen(ok), &o, &ack, err), X12KIT_STATUS_INVALID_ARGUMENT,
               "INVALID_ARGUMENT");
    CHECK_FAIL(x12kit_acknowledge((const uint8_t *)ok, strlen(ok), NULL, NULL, err), X12KIT_STATUS_NULL_POINTER,
               "NULL_POINTER");
    CHECK_FAIL(x12kit_acknowledge(NULL, 5, NULL, &ack, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK(ack.data == NULL);
    free(ok);
}

/* A clean envelope around an 850 whose BEG05 is 31 November. */
static const char BAD_DATE[] =
    "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *261122*0930*U*00401*000000001*0*P*>~"
    "GS*PO*SENDER*RECEIVER*20261122*0930*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20261131~PO1*1*2*EA~"
    "SE*4*0001~GE*1*1~IEA*1*000000001~";

static void test_structure_rules(void) {
    size_t n = strlen(BAD_DATE);
    x12kit_diagnostics *diags = NULL;
    /* x12kit_validate: the envelope rules only. */
    CHECK_OK(x12kit_validate((const uint8_t *)BAD_DATE, n, NULL, &diags, err));
    CHECK(x12kit_diagnostics_error_count(diags) == 0);
    x12kit_diagnostics_free(diags);
    diags = NULL;
    /* NULL or zero-filled options: the same. */
    x12kit_validate_options vo = {0};
    CHECK_OK(x12kit_validate_with((const uint8_t *)BAD_DATE, n, &vo, NULL, &diags, err));
    CHECK(x12kit_diagnostics_error_count(diags) == 0);
    x12kit_diagnostics_free(diags);
    diags = NULL;
    /* With the structure rules: the impossible date, at BEG05 (segment 3). */
    vo.structure = true;
    x12kit_string json = {0};
    CHECK_OK(x12kit_validate_with((const uint8_t *)BAD_DATE, n, &vo, &json, &diags, err));
    CHECK(x12kit_diagnostics_error_count(diags) == 1);
    x12kit_diagnostic d;
    CHECK(x12kit_diagnostics_get(diags, 0, &d));
    CHECK(strcmp(d.code, "ELEMENT_INVALID_DATE") == 0);
    CHECK(d.segment_index == 3 && d.element == 5);
    CHECK(json.data != NULL && strstr(json.data, "\"valid\":false") != NULL);
    x12kit_string_free(&json);
    x12kit_diagnostics_free(diags);
    CHECK_FAIL(x12kit_validate_with(NULL, 1, &vo, &json, NULL, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");

    /* Acknowledgements include the structure findings by default... */
    x12kit_string ack = {0};
    x12kit_ack_options o = {X12KIT_ACK_KIND_FA997, 1, 1, 1, false, NULL, 1700000000, NULL, 0, false};
    CHECK_OK(x12kit_acknowledge((const uint8_t *)BAD_DATE, n, &o, &ack, err));
    CHECK(ack.data != NULL && strstr(ack.data, "\nAK2*850*0001~\nAK3*BEG*2**8~\nAK4*5**8*20261131~\nAK5*R*5~\n") != NULL);
    x12kit_string_free(&ack);
    CHECK_OK(x12kit_acknowledge((const uint8_t *)BAD_DATE, n, NULL, &ack, err));
    CHECK(ack.data != NULL && strstr(ack.data, "\nAK3*BEG*2**8~\n") != NULL);
    x12kit_string_free(&ack);
    /* ...and leave them out with envelope_only. */
    o.envelope_only = true;
    CHECK_OK(x12kit_acknowledge((const uint8_t *)BAD_DATE, n, &o, &ack, err));
    CHECK(ack.data != NULL && strstr(ack.data, "\nAK2*850*0001~\nAK5*A~\n") != NULL);
    CHECK(ack.data != NULL && strstr(ack.data, "AK3") == NULL);
    x12kit_string_free(&ack);
}

/* Feeds `input` to a new push validator in chunks of `chunk` bytes; returns its JSON. */
static x12kit_string stream_json(const char *input, size_t chunk, const x12kit_validate_options *o) {
    x12kit_string json = {0};
    x12kit_stream_validator *v = x12kit_stream_validator_new(o, err);
    CHECK(v != NULL);
    size_t n = strlen(input);
    for (size_t at = 0; at < n; at += chunk) {
        size_t len = n - at < chunk ? n - at : chunk;
        CHECK_OK(x12kit_stream_validator_feed(v, (const uint8_t *)input + at, len, err));
    }
    CHECK_OK(x12kit_stream_validator_finish(v, &json, NULL, err));
    x12kit_stream_validator_free(v);
    return json;
}

static void test_stream_validator(void) {
    char *ok = valid_sample();
    char *bad1 = replace(ok, "SE*4*0001", "SE*5*0001");
    /* Two interchanges, the second with a wrong IEA01 too, and a trailing line. */
    char *bad2 = replace(bad1, "IEA*1*000000001~", "IEA*2*000000001~");
    size_t n1 = strlen(bad1), n2 = strlen(bad2);
    char *both = malloc(n1 + n2 + 1);
    CHECK(both != NULL);
    if (both == NULL) return;
    memcpy(both, bad1, n1);
    memcpy(both + n1, bad2, n2 + 1);

    /* Any chunking gives the JSON of x12kit_validate over the whole buffer. */
    const char *inputs[] = {ok, bad1, both, BAD_DATE};
    const size_t chunks[] = {1, 7, 4096};
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        x12kit_string whole = {0};
        CHECK_OK(x12kit_validate((const uint8_t *)inputs[i], strlen(inputs[i]), &whole, NULL, err));
        for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
            x12kit_string json = stream_json(inputs[i], chunks[c], NULL);
            CHECK(json.data != NULL && whole.data != NULL && json.len == whole.len &&
                  memcmp(json.data, whole.data, whole.len) == 0);
            x12kit_string_free(&json);
        }
        x12kit_string_free(&whole);
    }
    /* What the stream reads as it goes, the same as the whole buffer: a TA1
       (acknowledgements), invalid UTF-8 (split across chunks of 1) and an ISA
       that cannot be parsed (its interchange recovered for a TA1). */
    char *with_ta1 = replace(ok, "GS*PO*", "TA1*000000001*230101*1200*A*000~\nGS*PO*");
    char *latin = replace(ok, "BEG*00*SA*PO1", "BEG*00*SA*PO\xff\xfe\xc3\xa9");
    char *isa16 = replace(ok, "*T*:~", "*T* ~");
    const char *streamed[] = {with_ta1, latin, isa16};
    const char *shows[] = {"\"acknowledgements\":{\"interchangeAcks\":[{\"controlNumber\":\"000000001\"",
                           "\"code\":\"INVALID_UTF8\"", "\"recovered\":true"};
    for (size_t i = 0; i < sizeof streamed / sizeof *streamed; i++) {
        CHECK(streamed[i] != NULL);
        if (streamed[i] == NULL) continue;
        x12kit_string whole = {0};
        CHECK_OK(x12kit_validate((const uint8_t *)streamed[i], strlen(streamed[i]), &whole, NULL, err));
        CHECK(whole.data != NULL && strstr(whole.data, shows[i]) != NULL);
        for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
            x12kit_string json = stream_json(streamed[i], chunks[c], NULL);
            CHECK(json.data != NULL && whole.data != NULL && json.len == whole.len &&
                  memcmp(json.data, whole.data, whole.len) == 0);
            x12kit_string_free(&json);
        }
        x12kit_string_free(&whole);
    }
    free(with_ta1);
    free(latin);
    free(isa16);

    x12kit_string json = stream_json(both, 7, NULL);
    CHECK(starts_with(json.data, "{\"valid\":false,"));
    CHECK(json.data != NULL && strstr(json.data, "\"code\":\"SE01_COUNT\"") != NULL);
    CHECK(json.data != NULL && strstr(json.data, "\"code\":\"IEA01_COUNT\"") != NULL);
    x12kit_string_free(&json);

    /* Options: the structure rules, and summaries kept or not. */
    x12kit_validate_options vo = {0};
    vo.structure = true;
    x12kit_string whole = {0};
    CHECK_OK(x12kit_validate_with((const uint8_t *)BAD_DATE, strlen(BAD_DATE), &vo, &whole, NULL, err));
    json = stream_json(BAD_DATE, 7, &vo);
    CHECK(json.data != NULL && whole.data != NULL && json.len == whole.len &&
          memcmp(json.data, whole.data, whole.len) == 0);
    CHECK(json.data != NULL && strstr(json.data, "ELEMENT_INVALID_DATE") != NULL);
    x12kit_string_free(&json);
    x12kit_string_free(&whole);
    vo.structure = false;
    vo.retain = X12KIT_RETAIN_COUNTS;
    json = stream_json(bad1, 7, &vo);
    CHECK(json.data != NULL && strstr(json.data, "\"groups\":[]") != NULL);
    CHECK(json.data != NULL && strstr(json.data, "\"code\":\"SE01_COUNT\"") != NULL);
    x12kit_string_free(&json);
    CHECK_OK(x12kit_validate_with((const uint8_t *)bad1, n1, &vo, &json, NULL, err));
    CHECK(json.data != NULL && strstr(json.data, "\"groups\":[]") != NULL);
    x12kit_string_free(&json);
    vo.retain = 3;
    CHECK(x12kit_stream_validator_new(&vo, err) == NULL);
    CHECK(x12kit_error_status(err) == X12KIT_STATUS_INVALID_ARGUMENT &&
          strcmp(x12kit_error_code(err), "INVALID_ARGUMENT") == 0 &&
          strstr(x12kit_error_message(err), "retain") != NULL);
    CHECK_FAIL(x12kit_validate_with((const uint8_t *)bad1, n1, &vo, &json, NULL, err),
               X12KIT_STATUS_INVALID_ARGUMENT, "INVALID_ARGUMENT");
    x12kit_stream_validator *v;
    v = x12kit_stream_validator_new(NULL, NULL); /* a NULL err is allowed */
    CHECK(v != NULL);
    x12kit_stream_validator_free(v);

    /* The diagnostics output, alone or with the JSON; an empty input. */
    v = x12kit_stream_validator_new(NULL, err);
    x12kit_diagnostics *diags = NULL;
    CHECK_OK(x12kit_stream_validator_feed(v, (const uint8_t *)bad1, n1, err));
    CHECK_OK(x12kit_stream_validator_feed(v, NULL, 0, err));
    CHECK_OK(x12kit_stream_validator_finish(v, &json, &diags, err));
    x12kit_diagnostic d;
    CHECK(x12kit_diagnostics_count(diags) == 1 && x12kit_diagnostics_get(diags, 0, &d) &&
          strcmp(d.code, "SE01_COUNT") == 0 && d.segment_index == 5);
    CHECK(starts_with(json.data, "{\"valid\":false,\"errorCount\":1,"));

    /* After finish: only free. Feeding or finishing again is INVALID_ARGUMENT,
       and the outputs of a failed finish are emptied. */
    CHECK_FAIL(x12kit_stream_validator_feed(v, (const uint8_t *)ok, 3, err), X12KIT_STATUS_INVALID_ARGUMENT,
               "INVALID_ARGUMENT");
    CHECK(strstr(x12kit_error_message(err), "already") != NULL);
    x12kit_string json2 = json;
    x12kit_diagnostics *diags2 = diags;
    CHECK_FAIL(x12kit_stream_validator_finish(v, &json2, &diags2, err), X12KIT_STATUS_INVALID_ARGUMENT,
               "INVALID_ARGUMENT");
    CHECK(json2.data == NULL && json2.len == 0 && diags2 == NULL);
    x12kit_stream_validator_free(v);
    /* The outputs outlive the validator. */
    CHECK(starts_with(json.data, "{\"valid\":false,"));
    CHECK(x12kit_diagnostics_count(diags) == 1);
    x12kit_string_free(&json);
    x12kit_diagnostics_free(diags);

    v = x12kit_stream_validator_new(NULL, err);
    diags = NULL;
    CHECK_OK(x12kit_stream_validator_finish(v, NULL, &diags, err));
    CHECK(x12kit_diagnostics_get(diags, 0, &d) && strcmp(d.code, "NOT_X12") == 0);
    x12kit_diagnostics_free(diags);
    x12kit_stream_validator_free(v);

    /* NULL arguments. */
    v = x12kit_stream_validator_new(NULL, err);
    CHECK_FAIL(x12kit_stream_validator_feed(NULL, (const uint8_t *)ok, 3, err), X12KIT_STATUS_NULL_POINTER,
               "NULL_POINTER");
    CHECK_FAIL(x12kit_stream_validator_feed(v, NULL, 3, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK_FAIL(x12kit_stream_validator_feed(v, (const uint8_t *)ok, SIZE_MAX, err),
               X12KIT_STATUS_INVALID_ARGUMENT, "INVALID_ARGUMENT");
    CHECK_FAIL(x12kit_stream_validator_finish(NULL, &json, NULL, err), X12KIT_STATUS_NULL_POINTER,
               "NULL_POINTER");
    CHECK(json.data == NULL && json.len == 0);
    /* Both outputs NULL: an error, and the validator stays usable. */
    CHECK_FAIL(x12kit_stream_validator_finish(v, NULL, NULL, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK_OK(x12kit_stream_validator_feed(v, (const uint8_t *)ok, strlen(ok), err));
    CHECK_OK(x12kit_stream_validator_finish(v, &json, NULL, err));
    CHECK(starts_with(json.data, "{\"valid\":true,"));
    x12kit_string_free(&json);
    CHECK(x12kit_stream_validator_feed(NULL, NULL, 0, NULL) == X12KIT_STATUS_NULL_POINTER);
    x12kit_stream_validator_free(v);
    x12kit_stream_validator_free(NULL);

    /* Freed unfinished, with a segment held back: nothing leaks. */
    v = x12kit_stream_validator_new(NULL, err);
    CHECK_OK(x12kit_stream_validator_feed(v, (const uint8_t *)ok, strlen(ok) / 2, err));
    x12kit_stream_validator_free(v);

    free(both);
    free(bad2);
    free(bad1);
    free(ok);
}

/* ---------------------------------------------------------------- webhooks */

static const char BODY[] =
    "{\"event\":\"document.validated\",\"timestamp\":\"1700000000\",\"data\":{\"documentId\":"
    "\"doc_01HZX\",\"partnerId\":\"partner_acme\",\"documentTypeCode\":\"850\",\"status\":"
    "\"validated\"}}";
static const char SECRET[] = "my-signing-secret";
static const char SIGNATURE[] = "sha256=fb090f6b0016619b56520638272f5b9aec18c4f1d7bb71029e4c445ad484cfac";

static x12kit_status verify(const x12kit_bytes *secrets, size_t n, const char *sig, const char *ts,
                            const char *body, uint64_t now, x12kit_webhook_verified *v) {
    return x12kit_webhook_verify(secrets, n, sig, strlen(sig), ts, strlen(ts), (const uint8_t *)body,
                                 strlen(body), now, 300, v, err);
}

static void test_webhook_sign(void) {
    x12kit_string sig = {0};
    CHECK_OK(x12kit_webhook_sign((const uint8_t *)SECRET, strlen(SECRET), 1700000000,
                                 (const uint8_t *)BODY, strlen(BODY), &sig, err));
    CHECK(str_eq(&sig, SIGNATURE));
    x12kit_string_free(&sig);

    CHECK_FAIL(x12kit_webhook_sign((const uint8_t *)SECRET, 0, 1, (const uint8_t *)BODY, 1, &sig, err),
               X12KIT_STATUS_INVALID_INPUT, "EMPTY_SECRET");
    CHECK(sig.data == NULL);
    CHECK_FAIL(x12kit_webhook_sign(NULL, 0, 1, NULL, 0, &sig, err), X12KIT_STATUS_INVALID_INPUT, "EMPTY_SECRET");
    CHECK_FAIL(x12kit_webhook_sign(NULL, 4, 1, NULL, 0, &sig, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK_FAIL(x12kit_webhook_sign((const uint8_t *)SECRET, 3, 1, NULL, 2, &sig, err),
               X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK_FAIL(x12kit_webhook_sign((const uint8_t *)SECRET, 3, 1, NULL, 0, NULL, err),
               X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK_FAIL(x12kit_webhook_sign((const uint8_t *)SECRET, SIZE_MAX, 1, NULL, 0, &sig, err),
               X12KIT_STATUS_INVALID_ARGUMENT, "INVALID_ARGUMENT");
}

static void test_webhook_verify(void) {
    x12kit_bytes one[1] = {{(const uint8_t *)SECRET, sizeof SECRET - 1}};
    x12kit_bytes rotation[2] = {{(const uint8_t *)"old-secret", 10}, {(const uint8_t *)SECRET, sizeof SECRET - 1}};
    x12kit_webhook_verified v = {0, 99};
    const uint64_t now = 1700000002;

    CHECK_OK(verify(one, 1, SIGNATURE, "1700000000", BODY, now, &v));
    CHECK(v.timestamp == 1700000000 && v.secret_index == 0);
    CHECK_OK(verify(rotation, 2, SIGNATURE, "1700000000", BODY, now, &v));
    CHECK(v.secret_index == 1);
    CHECK_OK(verify(one, 1, SIGNATURE, "1700000000", BODY, 1700000300, NULL)); /* the edge */

    CHECK_FAIL(verify(one, 1, "", "1700000000", BODY, now, &v), X12KIT_STATUS_REJECTED, "MISSING_SIGNATURE");
    CHECK_FAIL(verify(one, 1, "sha256=zz", "1700000000", BODY, now, &v), X12KIT_STATUS_REJECTED,
               "MALFORMED_SIGNATURE");
    CHECK_FAIL(verify(one, 1, SIGNATURE, "", BODY, now, &v), X12KIT_STATUS_REJECTED, "MALFORMED_TIMESTAMP");
    CHECK_FAIL(verify(one, 1, SIGNATURE, "17e8", BODY, now, &v), X12KIT_STATUS_REJECTED, "MALFORMED_TIMESTAMP");
    CHECK_FAIL(verify(one, 1, SIGNATURE, "1700000000", BODY, 1700000301, &v), X12KIT_STATUS_REJECTED,
               "TIMESTAMP_OUT_OF_TOLERANCE");
    CHECK_FAIL(verify(one, 1, SIGNATURE, "1700000000", "{}", now, &v), X12KIT_STATUS_REJECTED,
               "SIGNATURE_MISMATCH");
    CHECK_FAIL(verify(rotation, 1, SIGNATURE, "1700000000", BODY, now, &v), X12KIT_STATUS_REJECTED,
               "SIGNATURE_MISMATCH");
    CHECK_FAIL(verify(one, 0, SIGNATURE, "1700000000", BODY, now, &v), X12KIT_STATUS_INVALID_INPUT,
               "EMPTY_SECRET");
    CHECK_FAIL(verify(NULL, 0, SIGNATURE, "1700000000", BODY, now, &v), X12KIT_STATUS_INVALID_INPUT,
               "EMPTY_SECRET");
    x12kit_bytes empty[2] = {{(const uint8_t *)SECRET, sizeof SECRET - 1}, {NULL, 0}};
    CHECK_FAIL(verify(empty, 2, SIGNATURE, "1700000000", BODY, now, &v), X12KIT_STATUS_INVALID_INPUT,
               "EMPTY_SECRET");
    CHECK(v.secret_index == 1); /* failures leave verified_out alone */

    /* Arguments. */
    CHECK_FAIL(verify(NULL, 1, SIGNATURE, "1700000000", BODY, now, &v), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    x12kit_bytes null_data[1] = {{NULL, 3}};
    CHECK_FAIL(verify(null_data, 1, SIGNATURE, "1700000000", BODY, now, &v), X12KIT_STATUS_NULL_POINTER,
               "NULL_POINTER");
    CHECK(strstr(x12kit_error_message(err), "secrets[0]") != NULL);
    CHECK_FAIL(verify(one, SIZE_MAX, SIGNATURE, "1700000000", BODY, now, &v), X12KIT_STATUS_INVALID_ARGUMENT,
               "INVALID_ARGUMENT");
    CHECK_FAIL(verify(one, 1, "sha256=\xff", "1700000000", BODY, now, &v), X12KIT_STATUS_INVALID_UTF8,
               "INVALID_UTF8");
    CHECK_FAIL(verify(one, 1, SIGNATURE, "17\xc0", BODY, now, &v), X12KIT_STATUS_INVALID_UTF8, "INVALID_UTF8");
    CHECK_FAIL(x12kit_webhook_verify(one, 1, NULL, 4, "1", 1, NULL, 0, now, 300, &v, err),
               X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK_FAIL(x12kit_webhook_verify(one, 1, SIGNATURE, strlen(SIGNATURE), "1", 1, NULL, 9, now, 300, &v, err),
               X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
}

static void test_webhook_standard(void) {
    const char *secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const char *id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
    const char *body = "{\"test\": 2432232314}";
    const char *expected = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";
    x12kit_string sig = {0};
    CHECK_OK(x12kit_webhook_standard_sign(secret, strlen(secret), id, strlen(id), 1614265330,
                                          (const uint8_t *)body, strlen(body), &sig, err));
    CHECK(str_eq(&sig, expected));
    x12kit_string_free(&sig);

    x12kit_bytes secrets[1] = {{(const uint8_t *)secret, strlen(secret)}};
    x12kit_webhook_verified v = {0, 9};
#define SVERIFY(i, s, t, now)                                                                   \
    x12kit_webhook_standard_verify(secrets, 1, i, strlen(i), s, strlen(s), t, strlen(t),         \
                                   (const uint8_t *)body, strlen(body), now, 300, &v, err)
    CHECK_OK(SVERIFY(id, expected, "1614265330", 1614265330));
    CHECK(v.timestamp == 1614265330 && v.secret_index == 0);
    CHECK_FAIL(SVERIFY("", expected, "1614265330", 1614265330), X12KIT_STATUS_REJECTED, "MISSING_ID");
    CHECK_FAIL(SVERIFY(id, "", "1614265330", 1614265330), X12KIT_STATUS_REJECTED, "MISSING_SIGNATURE");
    CHECK_FAIL(SVERIFY(id, "v1,abc", "1614265330", 1614265330), X12KIT_STATUS_REJECTED, "MALFORMED_SIGNATURE");
    CHECK_FAIL(SVERIFY(id, expected, "x", 1614265330), X12KIT_STATUS_REJECTED, "MALFORMED_TIMESTAMP");
    CHECK_FAIL(SVERIFY(id, expected, "1614265330", 1614266000), X12KIT_STATUS_REJECTED,
               "TIMESTAMP_OUT_OF_TOLERANCE");
    CHECK_FAIL(SVERIFY("msg_other", expected, "1614265330", 1614265330), X12KIT_STATUS_REJECTED,
               "SIGNATURE_MISMATCH");
    secrets[0].data = (const uint8_t *)"whsec_!!!";
    secrets[0].len = 9;
    CHECK_FAIL(SVERIFY(id, expected, "1614265330", 1614265330), X12KIT_STATUS_INVALID_INPUT, "MALFORMED_SECRET");
    secrets[0].data = (const uint8_t *)"whsec_\xff";
    secrets[0].len = 7;
    CHECK_FAIL(SVERIFY(id, expected, "1614265330", 1614265330), X12KIT_STATUS_INVALID_UTF8, "INVALID_UTF8");
#undef SVERIFY

    CHECK_FAIL(x12kit_webhook_standard_sign("whsec_", 6, id, strlen(id), 1, NULL, 0, &sig, err),
               X12KIT_STATUS_INVALID_INPUT, "EMPTY_SECRET");
    CHECK_FAIL(x12kit_webhook_standard_sign("whsec_!", 7, id, strlen(id), 1, NULL, 0, &sig, err),
               X12KIT_STATUS_INVALID_INPUT, "MALFORMED_SECRET");
    CHECK_FAIL(x12kit_webhook_standard_sign(secret, strlen(secret), "\xfe", 1, 1, NULL, 0, &sig, err),
               X12KIT_STATUS_INVALID_UTF8, "INVALID_UTF8");
    CHECK_FAIL(x12kit_webhook_standard_sign(secret, strlen(secret), id, strlen(id), 1, NULL, 0, NULL, err),
               X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK(sig.data == NULL);
}

/* ------------------------------------------------------------------ render */

static const char PARTNER[] =
    "{\"id\":\"acme-retail\",\"sender\":{\"qualifier\":\"ZZ\",\"id\":\"WIDGETSUPPLY\","
    "\"applicationCode\":\"WIDGETSUPPLY\"},\"receiver\":{\"qualifier\":\"01\",\"id\":\"123456789\","
    "\"applicationCode\":\"ACMERETAIL\"},\"version\":\"004010\",\"usage\":\"test\","
    "\"delimiters\":{\"element\":\"*\",\"component\":\">\",\"repetition\":\"^\",\"segment\":\"~\"},"
    "\"lineBreak\":\"\\n\",\"requiredFields\":{\"850\":[\"/shipTo/id\"]}}";
static const char PAYLOAD_850[] =
    "{\"purchaseOrderNumber\":\"PO-10045\",\"shipTo\":{\"id\":\"0003947268292\",\"name\":\"ACME "
    "Distribution Center\"},\"lines\":[{\"lineNumber\":1,\"sku\":\"WID-100\",\"quantity\":120,"
    "\"unitPrice\":9.25}]}";

static x12kit_status render(const char *type, const char *payload, const char *partner,
                            const x12kit_render_options *options, x12kit_string *x12, x12kit_issues **issues) {
    return x12kit_render(type, strlen(type), payload, strlen(payload), partner, strlen(partner), options, x12,
                         issues, err);
}

/* True if `issues` holds an issue with this code and pointer. */
static int has_issue(const x12kit_issues *issues, x12kit_severity severity, const char *code, const char *pointer) {
    x12kit_issue issue;
    for (size_t i = 0; x12kit_issues_get(issues, i, &issue); i++) {
        CHECK(issue.message != NULL && strlen(issue.message) > 0);
        if (issue.severity == severity && strcmp(issue.code, code) == 0 && strcmp(issue.pointer, pointer) == 0)
            return 1;
    }
    return 0;
}

static void test_render(void) {
    x12kit_render_options options = {7, 8, 9, "20261122", 8, "0930", 4};
    x12kit_string x12 = {0};
    x12kit_issues *issues = NULL;
    CHECK_OK(render("850", PAYLOAD_850, PARTNER, &options, &x12, &issues));
    CHECK(starts_with(x12.data, "ISA*00*"));
    CHECK(x12.data != NULL && strstr(x12.data, "*261122*0930*U*00401*000000007*") != NULL);
    CHECK(x12.data != NULL && strstr(x12.data, "\nGS*PO*WIDGETSUPPLY*ACMERETAIL*20261122*0930*8*X*004010~\n") != NULL);
    CHECK(x12.data != NULL && strstr(x12.data, "\nST*850*0009~\nBEG*00*SA*PO-10045**20261122~\n") != NULL);
    CHECK(x12.len > 17 && strcmp(x12.data + x12.len - 17, "IEA*1*000000007~\n") == 0);
    CHECK(issues != NULL && x12kit_issues_count(issues) == 0);
    /* What x12kit renders, x12kit parses without errors. */
    x12kit_diagnostics *diags = NULL;
    CHECK_OK(x12kit_parse((const uint8_t *)x12.data, x12.len, NULL, &diags, err));
    CHECK(x12kit_diagnostics_count(diags) == 0);
    x12kit_diagnostics_free(diags);
    x12kit_string_free(&x12);
    x12kit_issues_free(issues);

    /* Defaults (control numbers 1, now), no issues list, and a warning. */
    CHECK_OK(render("850", PAYLOAD_850, PARTNER, NULL, &x12, NULL));
    CHECK(x12.data != NULL && strstr(x12.data, "*000000001*") != NULL && strstr(x12.data, "\nST*850*0001~") != NULL);
    x12kit_string_free(&x12);
    char *extra = replace(PAYLOAD_850, "{\"purchaseOrderNumber\"", "{\"extra\":1,\"purchaseOrderNumber\"");
    CHECK_OK(render("850", extra, PARTNER, &options, &x12, &issues));
    CHECK(x12kit_issues_count(issues) == 1 && has_issue(issues, X12KIT_SEVERITY_WARNING, "UNKNOWN_FIELD", "/extra"));
    x12kit_string_free(&x12);
    x12kit_issues_free(issues);
    free(extra);

    /* Every problem at once. */
    const char *bad = "{\"shipTo\":{\"name\":\"x\"},\"lines\":[{\"lineNumber\":1,\"sku\":\"A\",\"quantity\":\"many\"}]}";
    CHECK_FAIL(render("850", bad, PARTNER, &options, &x12, &issues), X12KIT_STATUS_REJECTED, "INVALID_PAYLOAD");
    CHECK(x12.data == NULL);
    CHECK(has_issue(issues, X12KIT_SEVERITY_ERROR, "MISSING_FIELD", "/purchaseOrderNumber"));
    CHECK(has_issue(issues, X12KIT_SEVERITY_ERROR, "MISSING_FIELD", "/shipTo/id"));
    CHECK(has_issue(issues, X12KIT_SEVERITY_ERROR, "INVALID_FIELD", "/lines/0/quantity"));
    CHECK(strstr(x12kit_error_message(err), "/purchaseOrderNumber") != NULL);
    x12kit_issue first;
    CHECK(x12kit_issues_get(issues, 0, &first) && first.severity == X12KIT_SEVERITY_ERROR);
    CHECK(!x12kit_issues_get(issues, x12kit_issues_count(issues), &first));
    CHECK(!x12kit_issues_get(issues, 0, NULL) && !x12kit_issues_get(NULL, 0, &first));
    x12kit_issues_free(issues);

    CHECK_FAIL(render("999", PAYLOAD_850, PARTNER, &options, &x12, &issues), X12KIT_STATUS_REJECTED,
               "UNKNOWN_DOCUMENT_TYPE");
    CHECK(has_issue(issues, X12KIT_SEVERITY_ERROR, "UNKNOWN_DOCUMENT_TYPE", "/"));
    x12kit_issues_free(issues);
    CHECK_FAIL(render("850", PAYLOAD_850, "{}", &options, &x12, &issues), X12KIT_STATUS_REJECTED,
               "INVALID_PARTNER");
    CHECK(x12kit_issues_count(issues) >= 1);
    x12kit_issues_free(issues);
    CHECK_FAIL(render("850", "{", PARTNER, &options, &x12, &issues), X12KIT_STATUS_INVALID_INPUT, "INVALID_JSON");
    CHECK(x12kit_issues_count(issues) == 1 && has_issue(issues, X12KIT_SEVERITY_ERROR, "INVALID_JSON", "/payload"));
    x12kit_issues_free(issues);
    x12kit_render_options zero = {0, 1, 1, "20261122", 8, "0930", 4};
    CHECK_FAIL(render("850", PAYLOAD_850, PARTNER, &zero, &x12, &issues), X12KIT_STATUS_INVALID_INPUT,
               "INVALID_CONTROL_NUMBER");
    CHECK(has_issue(issues, X12KIT_SEVERITY_ERROR, "INVALID_CONTROL_NUMBER", "/"));
    x12kit_issues_free(issues);

    /* Arguments: no issues list for these. */
    x12kit_render_options half = {1, 1, 1, "20261122", 8, NULL, 0};
    CHECK_FAIL(render("850", PAYLOAD_850, PARTNER, &half, &x12, &issues), X12KIT_STATUS_INVALID_ARGUMENT,
               "INVALID_ARGUMENT");
    CHECK(issues == NULL);
    CHECK_FAIL(render("850", "{\"purchaseOrderNumber\":\"\xff\"}", PARTNER, NULL, &x12, &issues),
               X12KIT_STATUS_INVALID_UTF8, "INVALID_UTF8");
    CHECK(issues == NULL);
    x12kit_render_options bad_date = {1, 1, 1, "2026\xff", 5, "0930", 4};
    CHECK_FAIL(render("850", PAYLOAD_850, PARTNER, &bad_date, &x12, &issues), X12KIT_STATUS_INVALID_UTF8,
               "INVALID_UTF8");
    CHECK_FAIL(render("850", PAYLOAD_850, PARTNER, NULL, NULL, &issues), X12KIT_STATUS_NULL_POINTER,
               "NULL_POINTER");
    CHECK_FAIL(x12kit_render(NULL, 3, PAYLOAD_850, strlen(PAYLOAD_850), PARTNER, strlen(PARTNER), NULL, &x12,
                             &issues, err),
               X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK_FAIL(x12kit_render("850", 3, PAYLOAD_850, SIZE_MAX, PARTNER, strlen(PARTNER), NULL, &x12, &issues, err),
               X12KIT_STATUS_INVALID_ARGUMENT, "INVALID_ARGUMENT");
    CHECK(x12.data == NULL && issues == NULL);
    CHECK(x12kit_issues_count(NULL) == 0);
    x12kit_issues_free(NULL);
}

/* ------------------------------------------------------------------ reader */

/* "ID|elements|..." with repetitions as '^' and components as ':'. */
static void describe(const x12kit_segment *seg, char *out, size_t cap) {
    size_t n = 0;
#define PUT(c) do { if (n + 1 < cap) out[n++] = (char)(c); } while (0)
    for (size_t i = 0; i < seg->id_len; i++) PUT(seg->data[i]);
    x12kit_iter elements, reps, comps;
    x12kit_element el, rep, comp;
    x12kit_segment_elements(seg, &elements);
    while (x12kit_iter_next(&elements, &el)) {
        PUT('|');
        int first_rep = 1;
        x12kit_element_repetitions(&el, &reps);
        while (x12kit_iter_next(&reps, &rep)) {
            if (!first_rep) PUT('^');
            first_rep = 0;
            int first_comp = 1;
            x12kit_element_components(&rep, &comps);
            while (x12kit_iter_next(&comps, &comp)) {
                if (!first_comp) PUT(':');
                first_comp = 0;
                for (size_t i = 0; i < comp.len; i++) PUT(comp.data[i]);
            }
        }
    }
    out[n] = '\0';
#undef PUT
}

static void test_reader_buffer(void) {
    x12kit_reader *r = NULL;
    CHECK_OK(x12kit_reader_new((const uint8_t *)SAMPLE, SAMPLE_LEN, &r, err));
    const char *expected[] = {"ISA|00|          |00|          |ZZ|SENDER         |ZZ|RECEIVER       |230101|1200|^|00501|000000001|0|T|:",
                              "GS|PO|S|R|20230101|1200|1|X|005010",
                              "ST|850|0001",
                              "BEG|00|SA|PO1||20230101",
                              "REF|ZZ|A:B^C:D",
                              "SE|4|0001",
                              "GE|1|1",
                              "IEA|1|000000001"};
    const size_t offsets[] = {0, 107, 143, 156, 181, 197, 208, 216};
    x12kit_segment seg, saved[8];
    x12kit_diagnostic d;
    size_t n = 0;
    char text[256];
    x12kit_read what;
    while ((what = x12kit_reader_next(r, &seg, &d, err)) == X12KIT_READ_SEGMENT) {
        CHECK(n < 8);
        if (n >= 8) break;
        describe(&seg, text, sizeof text);
        CHECK(strcmp(text, expected[n]) == 0);
        if (strcmp(text, expected[n]) != 0) fprintf(stderr, "  segment %zu: %s\n", n, text);
        CHECK(seg.offset == offsets[n] && seg.index == n && seg.terminated);
        CHECK(seg.data == (const uint8_t *)SAMPLE + offsets[n]);
        CHECK(seg.delimiters.element == '*' && seg.delimiters.component == ':' &&
              seg.delimiters.has_repetition && seg.delimiters.repetition == '^' &&
              seg.delimiters.segment == '~');
        saved[n++] = seg;
    }
    CHECK(what == X12KIT_READ_END && n == 8);
    CHECK(x12kit_reader_next(r, &seg, &d, err) == X12KIT_READ_END); /* END again */
    CHECK_OK(x12kit_reader_finish(r, err)); /* no-op on a buffer reader */
    CHECK_FAIL(x12kit_reader_feed(r, (const uint8_t *)"x", 1, err), X12KIT_STATUS_INVALID_ARGUMENT,
               "INVALID_ARGUMENT");
    x12kit_reader_free(r);

    /* Views of a whole-buffer reader outlive the reader. */
    x12kit_segment beg = saved[3], ref = saved[4];
    x12kit_element el, c;
    CHECK(bytes_eq(beg.data, beg.id_len, "BEG"));
    CHECK(x12kit_segment_element_count(&beg) == 5);
    CHECK(x12kit_segment_element(&beg, 3, &el) && bytes_eq(el.data, el.len, "PO1"));
    CHECK(x12kit_segment_element(&beg, 4, &el) && el.len == 0);
    CHECK(!x12kit_segment_element(&beg, 0, &el));
    CHECK(!x12kit_segment_element(&beg, 6, &el));
    CHECK(!x12kit_segment_element(&beg, 1, NULL));
    CHECK(x12kit_segment_element(&ref, 2, &el) && bytes_eq(el.data, el.len, "A:B^C:D"));
    CHECK(x12kit_element_is_repeated(&el) && x12kit_element_is_composite(&el));
    CHECK(x12kit_element_component(&el, 2, &c) && bytes_eq(c.data, c.len, "B^C"));
    CHECK(!x12kit_element_component(&el, 0, &c) && !x12kit_element_component(&el, 4, &c));
    CHECK(x12kit_segment_element(&ref, 1, &el));
    CHECK(!x12kit_element_is_repeated(&el) && !x12kit_element_is_composite(&el));
    x12kit_segment iea = saved[7];
    CHECK(x12kit_segment_element_count(&iea) == 2);
}

static void test_reader_diagnostics(void) {
    const char *garbage = "hello world, this is not X12 at all";
    x12kit_reader *r = NULL;
    x12kit_segment seg;
    x12kit_diagnostic d;
    CHECK_OK(x12kit_reader_new((const uint8_t *)garbage, strlen(garbage), &r, err));
    CHECK(x12kit_reader_next(r, &seg, &d, err) == X12KIT_READ_DIAGNOSTIC);
    CHECK(strcmp(d.code, "NOT_X12") == 0 && d.severity == X12KIT_SEVERITY_ERROR && d.offset == 0);
    CHECK(strstr(d.message, "hello world") != NULL && d.segment_id == NULL && d.element == 0);
    CHECK(x12kit_reader_next(r, &seg, &d, err) == X12KIT_READ_END);
    x12kit_reader_free(r);

    /* NULL diagnostic_out skips diagnostics. */
    char *bad = replace(SAMPLE, "BEG*", "beg*");
    size_t segments = 0, diagnostics = 0;
    CHECK_OK(x12kit_reader_new((const uint8_t *)bad, strlen(bad), &r, err));
    while (x12kit_reader_next(r, &seg, NULL, err) == X12KIT_READ_SEGMENT) segments++;
    x12kit_reader_free(r);
    CHECK(segments == 8);
    segments = 0;
    CHECK_OK(x12kit_reader_new((const uint8_t *)bad, strlen(bad), &r, err));
    for (x12kit_read w; (w = x12kit_reader_next(r, &seg, &d, err)) != X12KIT_READ_END;) {
        if (w == X12KIT_READ_SEGMENT) segments++;
        if (w == X12KIT_READ_DIAGNOSTIC) {
            diagnostics++;
            CHECK(strcmp(d.code, "SEGMENT_ID") == 0 && d.segment_index == 3 && strcmp(d.segment_id, "beg") == 0);
        }
        if (w == X12KIT_READ_ERROR) break;
    }
    CHECK(segments == 8 && diagnostics == 1);
    x12kit_reader_free(r);
    free(bad);

    /* Empty input. */
    CHECK_OK(x12kit_reader_new(NULL, 0, &r, err));
    CHECK(x12kit_reader_next(r, &seg, &d, err) == X12KIT_READ_DIAGNOSTIC && strcmp(d.code, "NOT_X12") == 0);
    CHECK(x12kit_reader_next(r, &seg, &d, err) == X12KIT_READ_END);
    x12kit_reader_free(r);
}

/* Tokens of a reader, one string each, for comparing whole and chunked reads. */
#define MAX_TOKENS 64
typedef struct {
    char text[MAX_TOKENS][300];
    size_t n;
} tokens;

static void record(tokens *t, x12kit_read w, const x12kit_segment *seg, const x12kit_diagnostic *d) {
    if (t->n >= MAX_TOKENS) return;
    char *out = t->text[t->n++];
    if (w == X12KIT_READ_SEGMENT) {
        char desc[240];
        describe(seg, desc, sizeof desc);
        snprintf(out, 300, "S %zu %zu %d %s", seg->index, seg->offset, (int)seg->terminated, desc);
    } else {
        snprintf(out, 300, "D %s %zu %.200s", d->code, d->offset, d->message);
    }
}

static void read_whole(const char *input, size_t len, tokens *t) {
    x12kit_reader *r = NULL;
    x12kit_segment seg;
    x12kit_diagnostic d;
    t->n = 0;
    CHECK_OK(x12kit_reader_new((const uint8_t *)input, len, &r, err));
    for (x12kit_read w; (w = x12kit_reader_next(r, &seg, &d, err)) != X12KIT_READ_END;) {
        CHECK(w == X12KIT_READ_SEGMENT || w == X12KIT_READ_DIAGNOSTIC);
        if (w == X12KIT_READ_ERROR) break;
        record(t, w, &seg, &d);
    }
    x12kit_reader_free(r);
}

static void read_chunked(const char *input, size_t len, size_t chunk, tokens *t) {
    x12kit_reader *r = NULL;
    x12kit_segment seg;
    x12kit_diagnostic d;
    size_t pos = 0;
    t->n = 0;
    CHECK_OK(x12kit_reader_new_stream(&r, err));
    for (;;) {
        x12kit_read w = x12kit_reader_next(r, &seg, &d, err);
        if (w == X12KIT_READ_END) break;
        if (w == X12KIT_READ_ERROR) {
            CHECK(0);
            break;
        }
        if (w == X12KIT_READ_NEED_INPUT) {
            if (pos < len) {
                size_t n = len - pos < chunk ? len - pos : chunk;
                /* Feed from a copy that is overwritten right after: the reader copies. */
                char buf[4096];
                memcpy(buf, input + pos, n);
                CHECK_OK(x12kit_reader_feed(r, (const uint8_t *)buf, n, err));
                memset(buf, '#', n);
                pos += n;
            } else {
                CHECK_OK(x12kit_reader_finish(r, err));
            }
            continue;
        }
        record(t, w, &seg, &d);
    }
    x12kit_reader_free(r);
}

static void test_reader_stream(void) {
    /* A BOM, CRLF, an unterminated last segment, junk between interchanges. */
    static const char tricky[] =
        "\xEF\xBB\xBFISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       "
        "*230101*1200*^*00501*000000001*0*T*:~\r\nGS*PO*S*R*20230101*1200*1*X*005010~\r\n"
        "ST*850*0001~BEG*00*SA*PO1**20230101~SE*3*0001~GE*1*1~IEA*1*000000001~\n\njunk\n"
        "ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *230101*1200*U*"
        "00401*000000002*0*T*>\nIEA*0*000000002";
    static tokens whole, chunked;
    const size_t sizes[] = {1, 2, 3, 7, 64, 4096};
    const char *inputs[] = {SAMPLE, tricky};
    const size_t lens[] = {SAMPLE_LEN, sizeof tricky - 1};
    for (size_t i = 0; i < 2; i++) {
        read_whole(inputs[i], lens[i], &whole);
        CHECK(whole.n >= 8);
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            read_chunked(inputs[i], lens[i], sizes[s], &chunked);
            CHECK(chunked.n == whole.n);
            for (size_t k = 0; k < whole.n && k < chunked.n; k++) {
                CHECK(strcmp(whole.text[k], chunked.text[k]) == 0);
                if (strcmp(whole.text[k], chunked.text[k]) != 0)
                    fprintf(stderr, "  chunk %zu token %zu:\n   %s\n   %s\n", sizes[s], k, whole.text[k],
                            chunked.text[k]);
            }
        }
    }
    CHECK(strncmp(whole.text[0], "D BOM 0", 7) == 0);

    /* State errors. */
    x12kit_reader *r = NULL;
    x12kit_segment seg;
    CHECK_OK(x12kit_reader_new_stream(&r, err));
    CHECK(x12kit_reader_next(r, &seg, NULL, err) == X12KIT_READ_NEED_INPUT);
    CHECK_OK(x12kit_reader_feed(r, NULL, 0, err));
    CHECK_OK(x12kit_reader_feed(r, (const uint8_t *)SAMPLE, 50, err));
    CHECK(x12kit_reader_next(r, &seg, NULL, err) == X12KIT_READ_NEED_INPUT);
    CHECK_OK(x12kit_reader_finish(r, err));
    CHECK_OK(x12kit_reader_finish(r, err));
    CHECK_FAIL(x12kit_reader_feed(r, (const uint8_t *)SAMPLE, 1, err), X12KIT_STATUS_INVALID_ARGUMENT,
               "INVALID_ARGUMENT");
    CHECK(strstr(x12kit_error_message(err), "finish") != NULL);
    x12kit_diagnostic d;
    x12kit_read w = x12kit_reader_next(r, &seg, &d, err);
    CHECK(w == X12KIT_READ_DIAGNOSTIC); /* a truncated ISA */
    while (w != X12KIT_READ_END && w != X12KIT_READ_ERROR) w = x12kit_reader_next(r, &seg, &d, err);
    CHECK(w == X12KIT_READ_END);
    x12kit_reader_free(r);
}

static void test_reader_errors(void) {
    x12kit_reader *r = (x12kit_reader *)&r;
    x12kit_segment seg;
    CHECK_FAIL(x12kit_reader_new((const uint8_t *)SAMPLE, SAMPLE_LEN, NULL, err), X12KIT_STATUS_NULL_POINTER,
               "NULL_POINTER");
    CHECK_FAIL(x12kit_reader_new(NULL, 3, &r, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK(r == NULL);
    CHECK_FAIL(x12kit_reader_new((const uint8_t *)SAMPLE, SIZE_MAX, &r, err), X12KIT_STATUS_INVALID_ARGUMENT,
               "INVALID_ARGUMENT");
    CHECK_FAIL(x12kit_reader_new_stream(NULL, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");

    CHECK(x12kit_reader_next(NULL, &seg, NULL, err) == X12KIT_READ_ERROR);
    CHECK(strcmp(x12kit_error_code(err), "NULL_POINTER") == 0);
    CHECK_FAIL(x12kit_reader_feed(NULL, (const uint8_t *)"x", 1, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK_FAIL(x12kit_reader_finish(NULL, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");

    CHECK_OK(x12kit_reader_new_stream(&r, err));
    CHECK(x12kit_reader_next(r, NULL, NULL, err) == X12KIT_READ_ERROR);
    CHECK(strcmp(x12kit_error_code(err), "NULL_POINTER") == 0);
    CHECK(strstr(x12kit_error_message(err), "segment_out") != NULL);
    CHECK_FAIL(x12kit_reader_feed(r, NULL, 2, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK_FAIL(x12kit_reader_feed(r, (const uint8_t *)"x", SIZE_MAX, err), X12KIT_STATUS_INVALID_ARGUMENT,
               "INVALID_ARGUMENT");
    x12kit_reader_free(r);
    x12kit_reader_free(NULL);
    CHECK(x12kit_reader_next(NULL, NULL, NULL, NULL) == X12KIT_READ_ERROR);
}

static void test_views_edge_cases(void) {
    x12kit_iter it;
    x12kit_element el, out;
    x12kit_segment seg;
    memset(&it, 0, sizeof it);
    memset(&el, 0, sizeof el);
    memset(&seg, 0, sizeof seg);
    CHECK(!x12kit_iter_next(&it, &out)); /* zeroed iterator */
    CHECK(!x12kit_iter_next(NULL, &out));
    x12kit_element_components(&el, &it); /* zeroed element */
    CHECK(!x12kit_iter_next(&it, &out));
    x12kit_element_repetitions(NULL, &it);
    CHECK(!x12kit_iter_next(&it, &out));
    x12kit_element_components(&el, NULL);
    CHECK(!x12kit_element_is_composite(&el) && !x12kit_element_is_repeated(NULL));
    CHECK(!x12kit_element_component(&el, 1, &out) && !x12kit_element_component(NULL, 1, &out));
    /* A zeroed segment is an empty one: no elements. */
    x12kit_segment_elements(&seg, &it);
    CHECK(!x12kit_iter_next(&it, &out));
    x12kit_segment_elements(NULL, &it);
    CHECK(!x12kit_iter_next(&it, &out));
    x12kit_segment_elements(NULL, NULL);
    CHECK(x12kit_segment_element_count(&seg) == 0 && x12kit_segment_element_count(NULL) == 0);
    CHECK(!x12kit_segment_element(&seg, 1, &out) && !x12kit_segment_element(NULL, 1, &out));
    /* A segment whose data is NULL with a length is refused, not read. */
    seg.len = 10;
    CHECK(x12kit_segment_element_count(&seg) == 0);
    x12kit_segment_elements(&seg, &it);
    CHECK(!x12kit_iter_next(&it, &out));
    /* An exhausted iterator stays exhausted. */
    x12kit_reader *r = NULL;
    CHECK_OK(x12kit_reader_new((const uint8_t *)SAMPLE, SAMPLE_LEN, &r, err));
    CHECK(x12kit_reader_next(r, &seg, NULL, err) == X12KIT_READ_SEGMENT);
    x12kit_segment_elements(&seg, &it);
    size_t n = 0;
    while (x12kit_iter_next(&it, &out)) n++;
    CHECK(n == 16);
    CHECK(!x12kit_iter_next(&it, &out));
    /* Copies of an iterator continue independently. */
    x12kit_iter a, b;
    x12kit_segment_elements(&seg, &a);
    CHECK(x12kit_iter_next(&a, &out));
    b = a;
    CHECK(x12kit_iter_next(&a, &out) && bytes_eq(out.data, out.len, "          "));
    CHECK(x12kit_iter_next(&b, &out) && bytes_eq(out.data, out.len, "          "));
    x12kit_reader_free(r);
}

/* ------------------------------------------------------- garbage and fuzz */

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rng(void) {
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

/* The calls that take an operation's options as JSON text (docs/c.md,
 * "Options as JSON"): the same results as the typed calls, the core's
 * INVALID_OPTIONS with the key's pointer, and every NULL path. The
 * cross-language vectors (ffi/tests/vectors.c) run all their cases too. */
static void test_json_options(void) {
    x12kit_string a = {0}, b = {0};
    x12kit_diagnostics *diags = NULL;
    x12kit_issues *issues = NULL;
    const uint8_t *in = (const uint8_t *)SAMPLE;

    /* NULL options, "null" and the typed call with no options agree. */
    CHECK_OK(x12kit_parse_with_json_options(in, SAMPLE_LEN, NULL, 0, &a, &diags, err));
    CHECK_OK(x12kit_parse(in, SAMPLE_LEN, &b, NULL, err));
    CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    CHECK(x12kit_diagnostics_count(diags) == 0);
    x12kit_diagnostics_free(diags);
    x12kit_string_free(&a);
    CHECK_OK(x12kit_parse_with_json_options(in, SAMPLE_LEN, "null", 4, &a, NULL, err));
    CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    x12kit_string_free(&a);
    x12kit_string_free(&b);
    CHECK_OK(x12kit_parse_with_json_options(in, SAMPLE_LEN, "{\"documents\": false}", 20, &a, NULL, err));
    CHECK(strstr(a.data, "\"document\":") == NULL);
    x12kit_string_free(&a);

    const char *structure = "{\"structure\": true}";
    x12kit_validate_options typed = {true, X12KIT_RETAIN_ALL};
    CHECK_OK(x12kit_validate_with_json_options(in, SAMPLE_LEN, structure, strlen(structure), &a, NULL, err));
    CHECK_OK(x12kit_validate_with(in, SAMPLE_LEN, &typed, &b, NULL, err));
    CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    x12kit_string_free(&a);
    x12kit_string_free(&b);

    /* The options of every language, refused the same way. */
    CHECK_FAIL(x12kit_parse_with_json_options(in, SAMPLE_LEN, "{\"document\": 1}", 15, &a, NULL, err),
               X12KIT_STATUS_INVALID_INPUT, "INVALID_OPTIONS");
    CHECK(x12kit_error_path(err) != NULL && strcmp(x12kit_error_path(err), "/document") == 0);
    CHECK_FAIL(x12kit_validate_with_json_options(in, SAMPLE_LEN, "[true]", 6, &a, NULL, err),
               X12KIT_STATUS_INVALID_INPUT, "INVALID_OPTIONS");
    CHECK(x12kit_error_path(err) != NULL && strcmp(x12kit_error_path(err), "/") == 0);
    CHECK_FAIL(x12kit_validate_with_json_options(in, SAMPLE_LEN, "", 0, &a, NULL, err),
               X12KIT_STATUS_INVALID_INPUT, "INVALID_OPTIONS");
    CHECK_FAIL(x12kit_validate_with_json_options(in, SAMPLE_LEN, NULL, 3, &a, NULL, err),
               X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK_FAIL(x12kit_validate_with_json_options(in, SAMPLE_LEN, NULL, 0, NULL, NULL, err),
               X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK_FAIL(x12kit_validate_with_json_options(in, SAMPLE_LEN, "\"\xff\"", 3, &a, NULL, err),
               X12KIT_STATUS_INVALID_UTF8, "INVALID_UTF8");
    CHECK(a.data == NULL);

    /* acknowledge: the time is a parameter; date/time in the options win. */
    const char *kind = "{\"kind\": \"997\"}";
    CHECK_OK(x12kit_acknowledge_with_json_options(in, SAMPLE_LEN, kind, strlen(kind), 1700000000, &a, err));
    CHECK(strstr(a.data, "*231114*2213*") != NULL && strstr(a.data, "ST*997*0001") != NULL);
    x12kit_string_free(&a);
    const char *dated = "{\"kind\": \"999\", \"date\": \"20240229\", \"time\": \"0001\"}";
    CHECK_OK(x12kit_acknowledge_with_json_options(in, SAMPLE_LEN, dated, strlen(dated), 1700000000, &a, err));
    CHECK(strstr(a.data, "*240229*0001*") != NULL && strstr(a.data, "ST*999*0001") != NULL);
    /* ... which x12kit_read_acknowledgement reads back. */
    CHECK_OK(x12kit_read_acknowledgement((const uint8_t *)a.data, a.len, &b, err));
    CHECK(b.data != NULL && b.data[0] == '{');
    x12kit_string_free(&b);
    x12kit_string_free(&a);
    CHECK_FAIL(x12kit_acknowledge_with_json_options(in, SAMPLE_LEN, "{\"kind\": \"850\"}", 15, 1, &a, err),
               X12KIT_STATUS_INVALID_INPUT, "INVALID_OPTIONS");
    CHECK(x12kit_error_path(err) != NULL && strcmp(x12kit_error_path(err), "/kind") == 0);
    CHECK_FAIL(x12kit_acknowledge_with_json_options(in, SAMPLE_LEN, NULL, 0, 1, NULL, err),
               X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK_FAIL(x12kit_read_acknowledgement(in, SAMPLE_LEN, NULL, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK_FAIL(x12kit_read_acknowledgement(NULL, 1, &a, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");

    /* render: the same interchange as the typed call with the same numbers and time. */
    const char *numbered = "{\"controlNumbers\": {\"interchange\": 41, \"group\": 42, \"transaction\": 43}, "
                           "\"date\": \"20231114\", \"time\": \"2213\"}";
    x12kit_render_options ro = {41, 42, 43, "20231114", 8, "2213", 4};
    CHECK_OK(x12kit_render_with_json_options("850", 3, PAYLOAD_850, sizeof PAYLOAD_850 - 1, PARTNER,
                                             sizeof PARTNER - 1, numbered, strlen(numbered), 0, &a, &issues, err));
    x12kit_issues_free(issues);
    CHECK_OK(x12kit_render("850", 3, PAYLOAD_850, sizeof PAYLOAD_850 - 1, PARTNER, sizeof PARTNER - 1, &ro, &b,
                           NULL, err));
    CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    x12kit_string_free(&a);
    x12kit_string_free(&b);
    CHECK_FAIL(x12kit_render_with_json_options("850", 3, "{}", 2, PARTNER, sizeof PARTNER - 1, NULL, 0, 1700000000,
                                               &a, &issues, err),
               X12KIT_STATUS_REJECTED, "INVALID_PAYLOAD");
    CHECK(x12kit_issues_count(issues) > 0 && a.data == NULL);
    x12kit_issues_free(issues);
    CHECK_FAIL(x12kit_render_with_json_options("850", 3, PAYLOAD_850, sizeof PAYLOAD_850 - 1, PARTNER,
                                               sizeof PARTNER - 1, "{\"date\": \"20231114\"}", 20, 1700000000, &a,
                                               &issues, err),
               X12KIT_STATUS_INVALID_INPUT, "INVALID_TIMESTAMP");
    x12kit_issues_free(issues);
    CHECK_FAIL(x12kit_render_with_json_options("850", 3, PAYLOAD_850, sizeof PAYLOAD_850 - 1, PARTNER,
                                               sizeof PARTNER - 1, NULL, 0, 0, NULL, &issues, err),
               X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK(issues == NULL);

    /* write: the parse result as bytes; not UTF-8 is the core's INVALID_UTF8 (kind invalid_input). */
    a = parse_json(SAMPLE, SAMPLE_LEN);
    CHECK_OK(x12kit_write_with_json_options((const uint8_t *)a.data, a.len, "{\"lineBreak\": \"\\r\\n\"}", 21, &b,
                                            err));
    CHECK(strstr(b.data, "~\r\nGS*") != NULL);
    x12kit_string_free(&b);
    x12kit_string_free(&a);
    CHECK_FAIL(x12kit_write_with_json_options((const uint8_t *)"\"\xff\"", 3, NULL, 0, &b, err),
               X12KIT_STATUS_INVALID_INPUT, "INVALID_UTF8");
    CHECK_FAIL(x12kit_write_with_json_options((const uint8_t *)"{}", 2, "{\"linebreak\": \"\"}", 17, &b, err),
               X12KIT_STATUS_INVALID_INPUT, "INVALID_OPTIONS");
    CHECK(b.data == NULL);

    /* Schemas. */
    CHECK_OK(x12kit_document_schema("810", 3, &a, err));
    CHECK(a.data[0] == '{' && strstr(a.data, "\"$schema\"") != NULL);
    x12kit_string_free(&a);
    CHECK_FAIL(x12kit_document_schema("851", 3, &a, err), X12KIT_STATUS_REJECTED, "UNKNOWN_DOCUMENT_TYPE");
    CHECK_FAIL(x12kit_document_schema(NULL, 3, &a, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK_OK(x12kit_partner_schema(&a, err));
    CHECK(a.data[0] == '{');
    x12kit_string_free(&a);
    CHECK_FAIL(x12kit_partner_schema(NULL, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");

    /* describe_segment: names, numbers and code meanings; null for an unknown segment; bad arguments. */
    CHECK_OK(x12kit_describe_segment("850", 3, "004010", 6, "BEG", 3, &a, err));
    CHECK(a.data[0] == '{' && strstr(a.data, "\"set\":\"850\"") != NULL && a.len == strlen(a.data));
    CHECK(strstr(a.data, "\"segmentName\":\"Beginning Segment for Purchase Order\"") != NULL);
    CHECK(strstr(a.data, "{\"code\":\"00\",\"meaning\":\"Original\"}") != NULL);
    x12kit_string_free(&a);
    CHECK_OK(x12kit_describe_segment(NULL, 0, "00501", 5, "ISA", 3, &a, err));
    CHECK(strstr(a.data, "\"number\":\"I65\"") != NULL && strstr(a.data, "\"set\":null") != NULL);
    x12kit_string_free(&a);
    CHECK_OK(x12kit_describe_segment("850", 3, "004010", 6, "ZZZ", 3, &a, err));
    CHECK(a.len == 4 && strcmp(a.data, "null") == 0);
    x12kit_string_free(&a);
    CHECK_FAIL(x12kit_describe_segment("850", 3, "004010", 6, "beg", 3, &a, err), X12KIT_STATUS_INVALID_INPUT,
               "INVALID_ARGUMENT");
    CHECK(a.data == NULL);
    CHECK_FAIL(x12kit_describe_segment("850", 3, "5010", 4, "BEG", 3, &a, err), X12KIT_STATUS_INVALID_INPUT,
               "INVALID_ARGUMENT");
    CHECK_FAIL(x12kit_describe_segment("850", 3, "004010", 6, "\xff\xfe", 2, &a, err), X12KIT_STATUS_INVALID_UTF8,
               "INVALID_UTF8");
    CHECK_FAIL(x12kit_describe_segment("850", 3, "004010", 6, NULL, 3, &a, err), X12KIT_STATUS_NULL_POINTER,
               "NULL_POINTER");
    CHECK_FAIL(x12kit_describe_segment("850", 3, "004010", 6, "BEG", 3, NULL, err), X12KIT_STATUS_NULL_POINTER,
               "NULL_POINTER");

    /* webhook verify: the outcome as a struct and as JSON. */
    const char *body = "{}";
    x12kit_string sig = {0};
    CHECK_OK(x12kit_webhook_sign((const uint8_t *)"k2", 2, 1700000000, (const uint8_t *)body, 2, &sig, err));
    x12kit_bytes keys[2] = {{(const uint8_t *)"k1", 2}, {(const uint8_t *)"k2", 2}};
    x12kit_webhook_verified v = {0, 9};
    CHECK_OK(x12kit_webhook_verify_with_json_options(keys, 2, sig.data, sig.len, "1700000000", 10,
                                                     (const uint8_t *)body, 2, "{\"tolerance\": 5}", 16,
                                                     1700000005, &v, &a, err));
    CHECK(v.secret_index == 1 && v.timestamp == 1700000000);
    CHECK(a.data != NULL && strcmp(a.data, "{\"timestamp\":1700000000,\"secretIndex\":1}") == 0);
    x12kit_string_free(&a);
    CHECK_FAIL(x12kit_webhook_verify_with_json_options(keys, 2, sig.data, sig.len, "1700000000", 10,
                                                       (const uint8_t *)body, 2, "{\"tolerance\": 5}", 16,
                                                       1700000006, NULL, &a, err),
               X12KIT_STATUS_REJECTED, "TIMESTAMP_OUT_OF_TOLERANCE");
    CHECK(a.data == NULL);
    CHECK_FAIL(x12kit_webhook_verify_with_json_options(keys, 2, sig.data, sig.len, "1700000000", 10,
                                                       (const uint8_t *)body, 2, "{\"tolerance\": -1}", 17,
                                                       1700000000, NULL, NULL, err),
               X12KIT_STATUS_INVALID_INPUT, "INVALID_OPTIONS");
    CHECK(x12kit_error_path(err) != NULL && strcmp(x12kit_error_path(err), "/tolerance") == 0);
    x12kit_string_free(&sig);
}

static void exercise(const uint8_t *data, size_t len) {
    /* parse: JSON + diagnostics, then write the JSON back. */
    x12kit_string json = {0}, back = {0};
    x12kit_diagnostics *diags = NULL;
    CHECK_OK(x12kit_parse(data, len, &json, &diags, err));
    for (size_t i = 0; i < x12kit_diagnostics_count(diags); i++) {
        x12kit_diagnostic d;
        CHECK(x12kit_diagnostics_get(diags, i, &d) && d.code != NULL && d.message != NULL);
    }
    x12kit_status s = x12kit_write(json.data, json.len, NULL, 0, &back, err);
    CHECK(s == X12KIT_STATUS_OK || s == X12KIT_STATUS_INVALID_INPUT || s == X12KIT_STATUS_REJECTED);
    /* Lossless when nothing was diagnosed (invalid UTF-8, a warning, becomes U+FFFD). */
    if (s == X12KIT_STATUS_OK && x12kit_diagnostics_count(diags) == 0)
        CHECK(back.len == len && memcmp(back.data, data, len) == 0);
    x12kit_string_free(&back);
    x12kit_string_free(&json);
    x12kit_diagnostics_free(diags);

    /* The same bytes as JSON text and as secrets/headers. */
    s = x12kit_write((const char *)data, len, NULL, 0, &back, err);
    CHECK(s == X12KIT_STATUS_INVALID_INPUT || s == X12KIT_STATUS_INVALID_UTF8 || s == X12KIT_STATUS_REJECTED ||
          s == X12KIT_STATUS_OK);
    x12kit_string_free(&back);
    x12kit_bytes secret = {data, len};
    s = x12kit_webhook_verify(&secret, 1, (const char *)data, len, (const char *)data, len, data, len, 0, 300,
                              NULL, err);
    CHECK(s != X12KIT_STATUS_OK && s != X12KIT_STATUS_PANIC);

    x12kit_diagnostics *vdiags = NULL;
    CHECK_OK(x12kit_validate(data, len, NULL, &vdiags, err));
    x12kit_diagnostics_free(vdiags);
    s = x12kit_acknowledge(data, len, NULL, &back, err);
    CHECK(s == X12KIT_STATUS_OK || s == X12KIT_STATUS_INVALID_INPUT || s == X12KIT_STATUS_REJECTED);
    if (s == X12KIT_STATUS_OK && back.len > 0) {
        /* An acknowledgement always validates clean (an empty result: nothing to acknowledge). */
        CHECK_OK(x12kit_validate((const uint8_t *)back.data, back.len, NULL, &vdiags, err));
        CHECK(x12kit_diagnostics_error_count(vdiags) == 0);
        x12kit_diagnostics_free(vdiags);
    }
    x12kit_string_free(&back);

    x12kit_string x12 = {0};
    x12kit_issues *issues = NULL;
    s = x12kit_render("850", 3, (const char *)data, len, PARTNER, sizeof PARTNER - 1, NULL, &x12, &issues, err);
    CHECK(s == X12KIT_STATUS_INVALID_INPUT || s == X12KIT_STATUS_INVALID_UTF8 || s == X12KIT_STATUS_REJECTED);
    x12kit_issues_free(issues);
    s = x12kit_render((const char *)data, len > 8 ? 8 : len, PAYLOAD_850, sizeof PAYLOAD_850 - 1,
                      (const char *)data, len, NULL, &x12, NULL, err);
    CHECK(s == X12KIT_STATUS_INVALID_INPUT || s == X12KIT_STATUS_INVALID_UTF8 || s == X12KIT_STATUS_REJECTED);
    x12kit_string_free(&x12);

    /* The calls with options as JSON: the bytes as X12, and as the options text. */
    const char *opt = (const char *)data;
    CHECK_OK(x12kit_read_acknowledgement(data, len, &json, err));
    x12kit_string_free(&json);
    CHECK_OK(x12kit_parse_with_json_options(data, len, "{\"documents\":false}", 19, &json, NULL, err));
    x12kit_string_free(&json);
    s = x12kit_parse_with_json_options(data, len, opt, len, &json, &diags, err);
    CHECK(s == X12KIT_STATUS_INVALID_INPUT || s == X12KIT_STATUS_INVALID_UTF8);
    CHECK(json.data == NULL && diags == NULL);
    s = x12kit_validate_with_json_options(data, len, opt, len, &json, NULL, err);
    CHECK(s == X12KIT_STATUS_INVALID_INPUT || s == X12KIT_STATUS_INVALID_UTF8);
    s = x12kit_acknowledge_with_json_options(data, len, opt, len, 1700000000, &back, err);
    CHECK(s == X12KIT_STATUS_INVALID_INPUT || s == X12KIT_STATUS_INVALID_UTF8);
    s = x12kit_acknowledge_with_json_options(data, len, NULL, 0, 1700000000, &back, err);
    CHECK(s == X12KIT_STATUS_OK || s == X12KIT_STATUS_INVALID_INPUT || s == X12KIT_STATUS_REJECTED);
    x12kit_string_free(&back);
    s = x12kit_write_with_json_options(data, len, NULL, 0, &back, err);
    CHECK(s == X12KIT_STATUS_INVALID_INPUT || s == X12KIT_STATUS_REJECTED || s == X12KIT_STATUS_OK);
    x12kit_string_free(&back);
    s = x12kit_render_with_json_options("850", 3, PAYLOAD_850, sizeof PAYLOAD_850 - 1, PARTNER, sizeof PARTNER - 1,
                                        opt, len, 1700000000, &x12, &issues, err);
    CHECK(s == X12KIT_STATUS_INVALID_INPUT || s == X12KIT_STATUS_INVALID_UTF8);
    CHECK(x12.data == NULL && issues == NULL);
    s = x12kit_document_schema(opt, len, &json, err);
    CHECK(s == X12KIT_STATUS_REJECTED || s == X12KIT_STATUS_INVALID_UTF8);
    CHECK(json.data == NULL);

    /* Reader: whole buffer with every element and component, and a 3-byte stream. */
    x12kit_reader *r = NULL;
    x12kit_segment seg;
    x12kit_diagnostic d;
    char desc[512];
    size_t whole = 0, streamed = 0;
    CHECK_OK(x12kit_reader_new(data, len, &r, err));
    for (x12kit_read w; (w = x12kit_reader_next(r, &seg, &d, err)) != X12KIT_READ_END;) {
        if (w == X12KIT_READ_ERROR) {
            CHECK(0);
            break;
        }
        if (w == X12KIT_READ_SEGMENT) {
            describe(&seg, desc, sizeof desc);
            whole++;
        }
    }
    x12kit_reader_free(r);
    CHECK_OK(x12kit_reader_new_stream(&r, err));
    size_t pos = 0;
    for (x12kit_read w; (w = x12kit_reader_next(r, &seg, &d, err)) != X12KIT_READ_END;) {
        if (w == X12KIT_READ_ERROR) {
            CHECK(0);
            break;
        }
        if (w == X12KIT_READ_SEGMENT) {
            describe(&seg, desc, sizeof desc);
            streamed++;
        }
        if (w == X12KIT_READ_NEED_INPUT) {
            size_t n = len - pos < 3 ? len - pos : 3;
            if (n == 0)
                CHECK_OK(x12kit_reader_finish(r, err));
            else
                CHECK_OK(x12kit_reader_feed(r, data + pos, n, err));
            pos += n;
        }
    }
    x12kit_reader_free(r);
    CHECK(whole == streamed);
}

static void test_garbage(void) {
    uint8_t buf[600];
    for (int round = 0; round < 150; round++) {
        size_t len = (size_t)(rng() % sizeof buf);
        for (size_t i = 0; i < len; i++) buf[i] = (uint8_t)rng();
        exercise(buf, len);
    }
    /* Mutations of a valid interchange: flip, delete, insert delimiters. */
    const uint8_t specials[] = {'*', '~', ':', '^', '\n', '\r', 0, 0xff, 'I', 'S', 'A'};
    for (int round = 0; round < 150; round++) {
        size_t len = SAMPLE_LEN;
        memcpy(buf, SAMPLE, len);
        int edits = 1 + (int)(rng() % 4);
        for (int e = 0; e < edits; e++) {
            size_t at = (size_t)(rng() % len);
            switch (rng() % 3) {
            case 0: buf[at] = specials[rng() % sizeof specials]; break;
            case 1: memmove(buf + at, buf + at + 1, len - at - 1); len--; break;
            default:
                if (len + 1 < sizeof buf) {
                    memmove(buf + at + 1, buf + at, len - at);
                    buf[at] = specials[rng() % sizeof specials];
                    len++;
                }
            }
        }
        exercise(buf, len);
    }
    exercise((const uint8_t *)SAMPLE, SAMPLE_LEN);
    exercise((const uint8_t *)"ISA", 3);
    exercise((const uint8_t *)"\0\0\0\0", 4);
}

/* ------------------------------------------------------------- deliveries */

/* The data of BODY: a delivery of it at 1700000000 has exactly BODY and SIGNATURE. */
static const char DATA[] =
    "{\"documentId\":\"doc_01HZX\",\"partnerId\":\"partner_acme\",\"documentTypeCode\":\"850\","
    "\"status\":\"validated\"}";
static const char WHSEC[] = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

static x12kit_webhook_signer *new_signer(const char *standard_secret) {
    x12kit_webhook_signer *signer = NULL;
    CHECK_OK(x12kit_webhook_signer_new((const uint8_t *)SECRET, strlen(SECRET), standard_secret,
                                       standard_secret ? strlen(standard_secret) : 0, &signer, err));
    CHECK(signer != NULL);
    return signer;
}

static x12kit_status deliver(const x12kit_webhook_signer *signer, const char *event, const char *data,
                             uint64_t timestamp, x12kit_webhook_delivery **out) {
    return x12kit_webhook_deliver(signer, event, strlen(event), data, strlen(data), timestamp, out, err);
}

static const char *header(const x12kit_webhook_delivery *d, const char *name) {
    return x12kit_webhook_delivery_find_header(d, name, strlen(name));
}

static int header_is(const x12kit_webhook_delivery *d, const char *name, const char *value) {
    const char *got = header(d, name);
    return got != NULL && strcmp(got, value) == 0;
}

static int same_body(const x12kit_webhook_delivery *a, const x12kit_webhook_delivery *b) {
    const uint8_t *pa = NULL, *pb = NULL;
    size_t la = 0, lb = 0;
    return x12kit_webhook_delivery_body(a, &pa, &la) && x12kit_webhook_delivery_body(b, &pb, &lb) && la == lb &&
           memcmp(pa, pb, la) == 0;
}

/* x12kit_webhook_verify over the delivery's own body and X-Service-* headers. */
static x12kit_status verify_delivery(const x12kit_webhook_delivery *d, uint64_t now) {
    x12kit_bytes secrets[1] = {{(const uint8_t *)SECRET, sizeof SECRET - 1}};
    const char *sig = header(d, "X-Service-Signature"), *ts = header(d, "X-Service-Timestamp");
    const uint8_t *body = NULL;
    size_t len = 0;
    x12kit_webhook_delivery_body(d, &body, &len);
    return x12kit_webhook_verify(secrets, 1, sig, sig ? strlen(sig) : 0, ts, ts ? strlen(ts) : 0, body, len, now,
                                 300, NULL, err);
}

/* x12kit_webhook_standard_verify over the body and the webhook-* headers. */
static x12kit_status standard_verify_delivery(const x12kit_webhook_delivery *d, uint64_t now) {
    x12kit_bytes secrets[1] = {{(const uint8_t *)WHSEC, sizeof WHSEC - 1}};
    const char *id = header(d, "webhook-id"), *sig = header(d, "webhook-signature");
    const char *ts = header(d, "webhook-timestamp");
    const uint8_t *body = NULL;
    size_t len = 0;
    x12kit_webhook_delivery_body(d, &body, &len);
    return x12kit_webhook_standard_verify(secrets, 1, id, id ? strlen(id) : 0, sig, sig ? strlen(sig) : 0, ts,
                                          ts ? strlen(ts) : 0, body, len, now, 300, NULL, err);
}

static int is_uuid_v7(const char *id) {
    if (id == NULL || strlen(id) != 36 || id[14] != '7' || strchr("89ab", id[19]) == NULL) return 0;
    for (int i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (id[i] != '-') return 0;
        } else if (strchr("0123456789abcdef", id[i]) == NULL) {
            return 0;
        }
    }
    return 1;
}

static void test_webhook_deliver(void) {
    x12kit_webhook_signer *signer = new_signer(NULL);
    x12kit_webhook_delivery *first = NULL, *retry = NULL, *again = NULL;
    CHECK_OK(deliver(signer, "document.validated", DATA, 1700000000, &first));

    /* The body is the core's, byte for byte, so the signature is the worked example's. */
    const uint8_t *body = NULL;
    size_t body_len = 0;
    CHECK(x12kit_webhook_delivery_body(first, &body, &body_len));
    CHECK(bytes_eq(body, body_len, BODY));
    const char *id = x12kit_webhook_delivery_id(first);
    CHECK(is_uuid_v7(id));
    CHECK(x12kit_webhook_delivery_timestamp(first) == 1700000000);
    CHECK(strcmp(x12kit_webhook_delivery_event(first), "document.validated") == 0);

    /* The headers, in the order to send them. */
    const char *names[5] = {"Content-Type", "X-Service-Timestamp", "X-Service-Event", "X-Service-Delivery-ID",
                            "X-Service-Signature"};
    const char *values[5] = {"application/json", "1700000000", "document.validated", id, SIGNATURE};
    CHECK(x12kit_webhook_delivery_header_count(first) == 5);
    for (size_t i = 0; i < 5; i++) {
        const char *name = NULL, *value = NULL;
        CHECK(x12kit_webhook_delivery_header(first, i, &name, &value));
        CHECK(name != NULL && strcmp(name, names[i]) == 0);
        CHECK(value != NULL && values[i] != NULL && strcmp(value, values[i]) == 0);
    }
    const char *name = "x", *value = "x";
    CHECK(!x12kit_webhook_delivery_header(first, 5, &name, &value));
    CHECK(name == NULL && value == NULL);
    CHECK(x12kit_webhook_delivery_header(first, 0, NULL, &value) && strcmp(value, "application/json") == 0);
    CHECK(header_is(first, "x-service-signature", SIGNATURE)); /* names match case-insensitively */
    CHECK(header(first, "webhook-id") == NULL);                /* no Standard Webhooks secret */
    CHECK(header(first, "X-Service") == NULL);
    CHECK(x12kit_webhook_delivery_find_header(first, NULL, 0) == NULL);
    CHECK(x12kit_webhook_delivery_find_header(first, NULL, 5) == NULL);

    /* The receiver's check accepts it, with the body and headers as sent. */
    x12kit_webhook_verified v = {0, 9};
    x12kit_bytes one[1] = {{(const uint8_t *)SECRET, sizeof SECRET - 1}};
    CHECK_OK(x12kit_webhook_verify(one, 1, header(first, "X-Service-Signature"), strlen(SIGNATURE), "1700000000", 10,
                                   body, body_len, 1700000002, 300, &v, err));
    CHECK(v.timestamp == 1700000000 && v.secret_index == 0);

    /* A retry an hour later: same id, event and body; new timestamp and signature. */
    CHECK_OK(x12kit_webhook_retry(signer, first, 1700003600, &retry, err));
    CHECK(retry != NULL && retry != first);
    CHECK(strcmp(x12kit_webhook_delivery_id(retry), id) == 0);
    CHECK(header_is(retry, "X-Service-Delivery-ID", id));
    CHECK(same_body(retry, first));
    CHECK(x12kit_webhook_delivery_timestamp(retry) == 1700003600);
    CHECK(header_is(retry, "X-Service-Timestamp", "1700003600"));
    CHECK(header_is(retry, "X-Service-Event", "document.validated"));
    CHECK(!header_is(retry, "X-Service-Signature", SIGNATURE));
    CHECK(x12kit_webhook_delivery_header_count(retry) == 5);
    CHECK_OK(verify_delivery(retry, 1700003600));
    CHECK_FAIL(verify_delivery(first, 1700003600), X12KIT_STATUS_REJECTED, "TIMESTAMP_OUT_OF_TOLERANCE");
    /* The retry's signature is x12kit_webhook_sign over its timestamp and the body. */
    x12kit_string sig = {0};
    CHECK_OK(x12kit_webhook_sign((const uint8_t *)SECRET, strlen(SECRET), 1700003600, body, body_len, &sig, err));
    CHECK(header_is(retry, "X-Service-Signature", sig.data));
    x12kit_string_free(&sig);

    /* From storage: the id text and the body bytes give the same attempt as a retry. */
    CHECK_OK(x12kit_webhook_deliver_payload(signer, id, strlen(id), body, body_len, 1700003600, &again, err));
    for (size_t i = 0; i < 5; i++) {
        const char *a = NULL, *b = NULL;
        CHECK(x12kit_webhook_delivery_header(again, i, NULL, &a) && x12kit_webhook_delivery_header(retry, i, NULL, &b));
        CHECK(a != NULL && b != NULL && strcmp(a, b) == 0);
    }
    CHECK(same_body(again, first));
    x12kit_webhook_delivery_free(again);
    again = NULL;
    char upper[37];
    for (int i = 0; i < 37; i++) upper[i] = (char)(id[i] >= 'a' && id[i] <= 'f' ? id[i] - 32 : id[i]);
    CHECK_OK(x12kit_webhook_deliver_payload(signer, upper, 36, body, body_len, 0, &again, err));
    CHECK(strcmp(x12kit_webhook_delivery_id(again), id) == 0);
    x12kit_webhook_delivery_free(again);

    /* A delivery outlives its signer and the deliveries it came from. */
    x12kit_webhook_signer_free(signer);
    x12kit_webhook_delivery_free(first);
    CHECK_OK(verify_delivery(retry, 1700003700));
    x12kit_webhook_delivery_free(retry);

    /* Every event kind; members other than the four are ignored. */
    const char *kinds[4] = {"document.validated", "document.routed", "document.partner_ack", "document.error"};
    signer = new_signer(NULL);
    for (int i = 0; i < 4; i++) {
        x12kit_webhook_delivery *d = NULL;
        char prefix[64];
        snprintf(prefix, sizeof prefix, "{\"event\":\"%s\",\"timestamp\":\"1700000000\",", kinds[i]);
        CHECK_OK(deliver(signer, kinds[i], DATA, 1700000000, &d));
        CHECK(x12kit_webhook_delivery_body(d, &body, &body_len) && body_len > strlen(prefix) &&
              memcmp(body, prefix, strlen(prefix)) == 0);
        CHECK(header_is(d, "X-Service-Event", kinds[i]));
        x12kit_webhook_delivery_free(d);
    }
    const char *extra = "{\"extra\":[1,{}],\"status\":\"validated\",\"documentTypeCode\":\"850\","
                        "\"partnerId\":\"partner_acme\",\"documentId\":\"doc_01HZX\"}";
    CHECK_OK(deliver(signer, "document.validated", extra, 1700000000, &first));
    CHECK(x12kit_webhook_delivery_body(first, &body, &body_len) && bytes_eq(body, body_len, BODY));
    CHECK(header_is(first, "X-Service-Signature", SIGNATURE));
    x12kit_webhook_delivery_free(first);

    /* Timestamp 0: the system clock. */
    uint64_t before = (uint64_t)time(NULL);
    CHECK_OK(deliver(signer, "document.error", DATA, 0, &first));
    uint64_t after = (uint64_t)time(NULL), at = x12kit_webhook_delivery_timestamp(first);
    CHECK(at >= before && at <= after);
    CHECK_OK(verify_delivery(first, after));
    CHECK_OK(x12kit_webhook_retry(signer, first, 0, &retry, err));
    CHECK(x12kit_webhook_delivery_timestamp(retry) >= at);
    CHECK(strcmp(x12kit_webhook_delivery_id(retry), x12kit_webhook_delivery_id(first)) == 0);
    x12kit_webhook_delivery_free(retry);
    x12kit_webhook_delivery_free(first);
    /* Two deliveries never share an id. */
    CHECK_OK(deliver(signer, "document.error", DATA, 1700000000, &first));
    CHECK_OK(deliver(signer, "document.error", DATA, 1700000000, &again));
    CHECK(strcmp(x12kit_webhook_delivery_id(first), x12kit_webhook_delivery_id(again)) != 0);
    x12kit_webhook_delivery_free(first);
    x12kit_webhook_delivery_free(again);
    x12kit_webhook_signer_free(signer);
}

static void test_webhook_deliver_standard(void) {
    x12kit_webhook_signer *signer = new_signer(WHSEC);
    x12kit_webhook_delivery *first = NULL, *retry = NULL;
    CHECK_OK(deliver(signer, "document.routed", DATA, 1700000000, &first));
    const char *id = x12kit_webhook_delivery_id(first);
    const char *names[8] = {"Content-Type",        "X-Service-Timestamp", "X-Service-Event",  "X-Service-Delivery-ID",
                            "X-Service-Signature", "webhook-id",          "webhook-timestamp", "webhook-signature"};
    CHECK(x12kit_webhook_delivery_header_count(first) == 8);
    for (size_t i = 0; i < 8; i++) {
        const char *name = NULL;
        CHECK(x12kit_webhook_delivery_header(first, i, &name, NULL) && strcmp(name, names[i]) == 0);
    }
    CHECK(header_is(first, "webhook-id", id));
    CHECK(header_is(first, "webhook-timestamp", "1700000000"));
    CHECK(starts_with(header(first, "webhook-signature"), "v1,"));
    CHECK_OK(standard_verify_delivery(first, 1700000002));
    CHECK_OK(verify_delivery(first, 1700000002)); /* the service's own signature too */

    /* webhook-signature is x12kit_webhook_standard_sign over id, timestamp and body. */
    const uint8_t *body = NULL;
    size_t body_len = 0;
    CHECK(x12kit_webhook_delivery_body(first, &body, &body_len));
    x12kit_string sig = {0};
    CHECK_OK(x12kit_webhook_standard_sign(WHSEC, strlen(WHSEC), id, strlen(id), 1700000000, body, body_len, &sig,
                                          err));
    CHECK(header_is(first, "webhook-signature", sig.data));
    x12kit_string_free(&sig);

    CHECK_OK(x12kit_webhook_retry(signer, first, 1700003600, &retry, err));
    CHECK(header_is(retry, "webhook-id", id));
    CHECK(header_is(retry, "webhook-timestamp", "1700003600"));
    CHECK(strcmp(header(retry, "webhook-signature"), header(first, "webhook-signature")) != 0);
    CHECK_OK(standard_verify_delivery(retry, 1700003600));
    CHECK_FAIL(standard_verify_delivery(first, 1700003600), X12KIT_STATUS_REJECTED, "TIMESTAMP_OUT_OF_TOLERANCE");
    x12kit_webhook_delivery_free(retry);
    x12kit_webhook_delivery_free(first);
    x12kit_webhook_signer_free(signer);

    /* The whsec_ prefix is optional, as in the reference libraries. */
    signer = new_signer(WHSEC + 6);
    CHECK_OK(deliver(signer, "document.routed", DATA, 1700000000, &first));
    CHECK_OK(standard_verify_delivery(first, 1700000000));
    x12kit_webhook_delivery_free(first);
    x12kit_webhook_signer_free(signer);
}

static void test_webhook_deliver_errors(void) {
    x12kit_webhook_signer *signer = NULL, *dangling = (x12kit_webhook_signer *)&checks;
    x12kit_webhook_delivery *d = NULL, *stale = (x12kit_webhook_delivery *)&checks;
    const uint8_t *key = (const uint8_t *)SECRET;
    size_t key_len = strlen(SECRET);

    /* Creating a signer; a failure sets *signer_out to NULL. */
    signer = dangling;
    CHECK_FAIL(x12kit_webhook_signer_new(key, 0, NULL, 0, &signer, err), X12KIT_STATUS_INVALID_INPUT, "EMPTY_SECRET");
    CHECK(signer == NULL);
    CHECK_FAIL(x12kit_webhook_signer_new(NULL, 0, NULL, 0, &signer, err), X12KIT_STATUS_INVALID_INPUT,
               "EMPTY_SECRET");
    CHECK_FAIL(x12kit_webhook_signer_new(NULL, 4, NULL, 0, &signer, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK(strstr(x12kit_error_message(err), "secret") != NULL);
    CHECK_FAIL(x12kit_webhook_signer_new(key, SIZE_MAX, NULL, 0, &signer, err), X12KIT_STATUS_INVALID_ARGUMENT,
               "INVALID_ARGUMENT");
    CHECK_FAIL(x12kit_webhook_signer_new(key, key_len, "whsec_", 6, &signer, err), X12KIT_STATUS_INVALID_INPUT,
               "EMPTY_SECRET");
    CHECK_FAIL(x12kit_webhook_signer_new(key, key_len, "whsec_!!!", 9, &signer, err), X12KIT_STATUS_INVALID_INPUT,
               "MALFORMED_SECRET");
    CHECK_FAIL(x12kit_webhook_signer_new(key, key_len, "whsec_\xff", 7, &signer, err), X12KIT_STATUS_INVALID_UTF8,
               "INVALID_UTF8");
    CHECK(strstr(x12kit_error_message(err), "standard_secret") != NULL);
    CHECK_FAIL(x12kit_webhook_signer_new(key, key_len, NULL, 6, &signer, err), X12KIT_STATUS_NULL_POINTER,
               "NULL_POINTER");
    CHECK_FAIL(x12kit_webhook_signer_new(key, key_len, NULL, 0, NULL, err), X12KIT_STATUS_NULL_POINTER,
               "NULL_POINTER");
    CHECK(signer == NULL);
    CHECK(x12kit_webhook_signer_new(key, 0, NULL, 0, &signer, NULL) == X12KIT_STATUS_INVALID_INPUT);

    /* Delivering; a failure sets *delivery_out to NULL. */
    signer = new_signer(NULL);
#define DELIVER_FAIL(event, event_len, data, data_len, status, code)                                   \
    do {                                                                                              \
        d = stale;                                                                                    \
        CHECK_FAIL(x12kit_webhook_deliver(signer, event, event_len, data, data_len, 1700000000, &d, err), \
                   status, code);                                                                     \
        CHECK(d == NULL);                                                                             \
    } while (0)
    const char *ev = "document.validated";
    size_t ev_len = strlen(ev), data_len = strlen(DATA);
    DELIVER_FAIL("document.sent", 13, DATA, data_len, X12KIT_STATUS_INVALID_INPUT, "UNKNOWN_EVENT");
    CHECK(strstr(x12kit_error_message(err), "document.sent") != NULL);
    DELIVER_FAIL("Document.Validated", 18, DATA, data_len, X12KIT_STATUS_INVALID_INPUT, "UNKNOWN_EVENT");
    DELIVER_FAIL(ev, 8, DATA, data_len, X12KIT_STATUS_INVALID_INPUT, "UNKNOWN_EVENT");
    DELIVER_FAIL(NULL, 0, DATA, data_len, X12KIT_STATUS_INVALID_INPUT, "UNKNOWN_EVENT");
    DELIVER_FAIL("document.validated\xff", 19, DATA, data_len, X12KIT_STATUS_INVALID_UTF8, "INVALID_UTF8");
    CHECK(strstr(x12kit_error_message(err), "event") != NULL);
    DELIVER_FAIL(NULL, 5, DATA, data_len, X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    DELIVER_FAIL(ev, SIZE_MAX, DATA, data_len, X12KIT_STATUS_INVALID_ARGUMENT, "INVALID_ARGUMENT");
    /* data_json that is not JSON. */
    DELIVER_FAIL(ev, ev_len, "{", 1, X12KIT_STATUS_INVALID_INPUT, "INVALID_JSON");
    CHECK(strstr(x12kit_error_message(err), "data_json") != NULL);
    DELIVER_FAIL(ev, ev_len, NULL, 0, X12KIT_STATUS_INVALID_INPUT, "INVALID_JSON");
    DELIVER_FAIL(ev, ev_len, "documentId=1", 12, X12KIT_STATUS_INVALID_INPUT, "INVALID_JSON");
    DELIVER_FAIL(ev, ev_len, DATA, data_len - 1, X12KIT_STATUS_INVALID_INPUT, "INVALID_JSON");
    char trailing[sizeof DATA + 2];
    snprintf(trailing, sizeof trailing, "%s x", DATA);
    DELIVER_FAIL(ev, ev_len, trailing, strlen(trailing), X12KIT_STATUS_INVALID_INPUT, "INVALID_JSON");
    /* JSON, but not the event data object: wrong types, missing members. */
    DELIVER_FAIL(ev, ev_len, "[]", 2, X12KIT_STATUS_INVALID_INPUT, "MALFORMED_BODY");
    DELIVER_FAIL(ev, ev_len, "null", 4, X12KIT_STATUS_INVALID_INPUT, "MALFORMED_BODY");
    DELIVER_FAIL(ev, ev_len, "\"doc\"", 5, X12KIT_STATUS_INVALID_INPUT, "MALFORMED_BODY");
    DELIVER_FAIL(ev, ev_len, "{}", 2, X12KIT_STATUS_INVALID_INPUT, "MALFORMED_BODY");
    char *wrong = replace(DATA, "\"doc_01HZX\"", "17");
    DELIVER_FAIL(ev, ev_len, wrong, strlen(wrong), X12KIT_STATUS_INVALID_INPUT, "MALFORMED_BODY");
    CHECK(strstr(x12kit_error_message(err), "invalid type") != NULL);
    free(wrong);
    wrong = replace(DATA, "\"850\"", "null");
    DELIVER_FAIL(ev, ev_len, wrong, strlen(wrong), X12KIT_STATUS_INVALID_INPUT, "MALFORMED_BODY");
    free(wrong);
    wrong = replace(DATA, "\"validated\"", "[\"validated\"]");
    DELIVER_FAIL(ev, ev_len, wrong, strlen(wrong), X12KIT_STATUS_INVALID_INPUT, "MALFORMED_BODY");
    free(wrong);
    wrong = replace(DATA, "\"partnerId\"", "\"partnerID\"");
    DELIVER_FAIL(ev, ev_len, wrong, strlen(wrong), X12KIT_STATUS_INVALID_INPUT, "MALFORMED_BODY");
    CHECK(strstr(x12kit_error_message(err), "partnerId") != NULL); /* names the missing member */
    free(wrong);
    /* Invalid UTF-8 inside a JSON string, and NULL data. */
    wrong = replace(DATA, "doc_01HZX", "doc_\xc3\x28");
    DELIVER_FAIL(ev, ev_len, wrong, strlen(wrong), X12KIT_STATUS_INVALID_UTF8, "INVALID_UTF8");
    CHECK(strstr(x12kit_error_message(err), "data_json") != NULL);
    free(wrong);
    DELIVER_FAIL(ev, ev_len, NULL, 3, X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    DELIVER_FAIL(ev, ev_len, DATA, SIZE_MAX, X12KIT_STATUS_INVALID_ARGUMENT, "INVALID_ARGUMENT");
#undef DELIVER_FAIL
    d = stale;
    CHECK_FAIL(x12kit_webhook_deliver(NULL, ev, ev_len, DATA, data_len, 1, &d, err), X12KIT_STATUS_NULL_POINTER,
               "NULL_POINTER");
    CHECK(d == NULL && strstr(x12kit_error_message(err), "signer") != NULL);
    CHECK_FAIL(x12kit_webhook_deliver(signer, ev, ev_len, DATA, data_len, 1, NULL, err), X12KIT_STATUS_NULL_POINTER,
               "NULL_POINTER");
    CHECK(x12kit_webhook_deliver(signer, ev, ev_len, "{", 1, 1, &d, NULL) == X12KIT_STATUS_INVALID_INPUT);

    /* Retrying. */
    x12kit_webhook_delivery *first = NULL;
    CHECK_OK(deliver(signer, ev, DATA, 1700000000, &first));
    d = stale;
    CHECK_FAIL(x12kit_webhook_retry(NULL, first, 1, &d, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK(d == NULL);
    d = stale;
    CHECK_FAIL(x12kit_webhook_retry(signer, NULL, 1, &d, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK(d == NULL && strstr(x12kit_error_message(err), "previous") != NULL);
    CHECK_FAIL(x12kit_webhook_retry(signer, first, 1, NULL, err), X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");

    /* Redelivering from storage. */
    const char *id = x12kit_webhook_delivery_id(first);
    const uint8_t *body = NULL;
    size_t body_len = 0;
    CHECK(x12kit_webhook_delivery_body(first, &body, &body_len));
#define PAYLOAD_FAIL(id_, id_len, body_, body_len_, status, code)                                          \
    do {                                                                                                   \
        d = stale;                                                                                         \
        CHECK_FAIL(x12kit_webhook_deliver_payload(signer, id_, id_len, body_, body_len_, 1, &d, err), status, \
                   code);                                                                                  \
        CHECK(d == NULL);                                                                                  \
    } while (0)
    PAYLOAD_FAIL("not-a-uuid", 10, body, body_len, X12KIT_STATUS_INVALID_INPUT, "MALFORMED_DELIVERY_ID");
    PAYLOAD_FAIL("0190b5e2-7c4e-4a3f-8d2e-3c1f6a9b0c7d", 36, body, body_len, X12KIT_STATUS_INVALID_INPUT,
                 "MALFORMED_DELIVERY_ID"); /* a version 4 UUID */
    PAYLOAD_FAIL(NULL, 0, body, body_len, X12KIT_STATUS_INVALID_INPUT, "MALFORMED_DELIVERY_ID");
    PAYLOAD_FAIL("\xff", 1, body, body_len, X12KIT_STATUS_INVALID_UTF8, "INVALID_UTF8");
    PAYLOAD_FAIL(NULL, 36, body, body_len, X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    PAYLOAD_FAIL(id, strlen(id), (const uint8_t *)DATA, data_len, X12KIT_STATUS_INVALID_INPUT, "MALFORMED_BODY");
    PAYLOAD_FAIL(id, strlen(id), (const uint8_t *)"{", 1, X12KIT_STATUS_INVALID_INPUT, "MALFORMED_BODY");
    PAYLOAD_FAIL(id, strlen(id), NULL, 0, X12KIT_STATUS_INVALID_INPUT, "MALFORMED_BODY");
    char *unknown = replace(BODY, "document.validated", "document.sent");
    PAYLOAD_FAIL(id, strlen(id), (const uint8_t *)unknown, strlen(unknown), X12KIT_STATUS_INVALID_INPUT,
                 "MALFORMED_BODY");
    free(unknown);
    PAYLOAD_FAIL(id, strlen(id), NULL, 4, X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
#undef PAYLOAD_FAIL
    CHECK_FAIL(x12kit_webhook_deliver_payload(NULL, id, strlen(id), body, body_len, 1, &d, err),
               X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    CHECK_FAIL(x12kit_webhook_deliver_payload(signer, id, strlen(id), body, body_len, 1, NULL, err),
               X12KIT_STATUS_NULL_POINTER, "NULL_POINTER");
    x12kit_webhook_delivery_free(first);

    /* Accessors and frees accept NULL. */
    const uint8_t *data = body;
    size_t len = 7;
    CHECK(!x12kit_webhook_delivery_body(NULL, &data, &len));
    CHECK(data == NULL && len == 0);
    CHECK(!x12kit_webhook_delivery_body(NULL, NULL, NULL));
    CHECK(x12kit_webhook_delivery_header_count(NULL) == 0);
    const char *name = "x", *value = "x";
    CHECK(!x12kit_webhook_delivery_header(NULL, 0, &name, &value));
    CHECK(name == NULL && value == NULL);
    CHECK(x12kit_webhook_delivery_find_header(NULL, "Content-Type", 12) == NULL);
    CHECK(x12kit_webhook_delivery_id(NULL) == NULL);
    CHECK(x12kit_webhook_delivery_event(NULL) == NULL);
    CHECK(x12kit_webhook_delivery_timestamp(NULL) == 0);
    x12kit_webhook_delivery_free(NULL);
    x12kit_webhook_signer_free(NULL);
    x12kit_webhook_signer_free(signer);
}

/* Mutated event data: every outcome is a delivery or a typed error, never a crash. */
static void test_webhook_deliver_garbage(void) {
    static const char specials[] = "{}[]\":,\\ 0-9tfnue\xff\xc3";
    x12kit_webhook_signer *signer = new_signer(WHSEC);
    char buf[sizeof DATA + 8];
    for (int round = 0; round < 300; round++) {
        size_t len = sizeof DATA - 1;
        memcpy(buf, DATA, len);
        for (int k = 1 + (int)(rng() % 3); k > 0; k--) {
            size_t at = (size_t)(rng() % len);
            if (rng() % 4 == 0 && len > 1) {
                memmove(buf + at, buf + at + 1, len - at - 1); /* delete a byte */
                len--;
            } else {
                buf[at] = specials[rng() % (sizeof specials - 1)];
            }
        }
        x12kit_webhook_delivery *d = NULL;
        x12kit_status s = x12kit_webhook_deliver(signer, "document.routed", 15, buf, len, 1700000000, &d, err);
        if (s == X12KIT_STATUS_OK) {
            CHECK(d != NULL);
            CHECK_OK(standard_verify_delivery(d, 1700000000));
        } else {
            const char *code = x12kit_error_code(err);
            CHECK(d == NULL);
            CHECK((s == X12KIT_STATUS_INVALID_INPUT &&
                   (strcmp(code, "INVALID_JSON") == 0 || strcmp(code, "MALFORMED_BODY") == 0)) ||
                  (s == X12KIT_STATUS_INVALID_UTF8 && strcmp(code, "INVALID_UTF8") == 0));
        }
        x12kit_webhook_delivery_free(d);
    }
    x12kit_webhook_signer_free(signer);
}

/* One signer shared by several threads: deliver, retry and verify concurrently. */
static void *delivery_worker(void *arg) {
    const x12kit_webhook_signer *signer = arg;
    int ok = 1;
    for (int i = 0; i < 20; i++) {
        x12kit_webhook_delivery *d = NULL, *r = NULL;
        ok &= x12kit_webhook_deliver(signer, "document.validated", 18, DATA, sizeof DATA - 1, 1700000000, &d,
                                     NULL) == X12KIT_STATUS_OK;
        ok &= x12kit_webhook_retry(signer, d, 1700000060, &r, NULL) == X12KIT_STATUS_OK;
        const uint8_t *body = NULL;
        size_t len = 0;
        ok &= x12kit_webhook_delivery_body(r, &body, &len) && bytes_eq(body, len, BODY);
        const char *sig = x12kit_webhook_delivery_find_header(d, "X-Service-Signature", 19);
        ok &= sig != NULL && strcmp(sig, SIGNATURE) == 0;
        ok &= r != NULL && strcmp(x12kit_webhook_delivery_id(d), x12kit_webhook_delivery_id(r)) == 0;
        x12kit_webhook_delivery_free(r);
        x12kit_webhook_delivery_free(d);
    }
    return ok ? (void *)1 : NULL;
}

static void test_webhook_deliver_threads(void) {
    x12kit_webhook_signer *signer = new_signer(WHSEC);
    pthread_t t[4];
    for (int i = 0; i < 4; i++) CHECK(pthread_create(&t[i], NULL, delivery_worker, signer) == 0);
    for (int i = 0; i < 4; i++) {
        void *ok = NULL;
        CHECK(pthread_join(t[i], &ok) == 0 && ok != NULL);
    }
    x12kit_webhook_signer_free(signer);
}

/* -------------------------------------------------------------- threads */

static void *worker(void *arg) {
    (void)arg;
    int ok = 1;
    for (int i = 0; i < 20; i++) {
        x12kit_string json = {0}, sig = {0};
        ok &= x12kit_parse((const uint8_t *)SAMPLE, SAMPLE_LEN, &json, NULL, NULL) == X12KIT_STATUS_OK;
        ok &= json.data != NULL && strstr(json.data, "\"PO1\"") != NULL;
        ok &= x12kit_webhook_sign((const uint8_t *)SECRET, strlen(SECRET), 1700000000, (const uint8_t *)BODY,
                                  strlen(BODY), &sig, NULL) == X12KIT_STATUS_OK;
        ok &= str_eq(&sig, SIGNATURE);
        x12kit_string_free(&json);
        x12kit_string_free(&sig);
    }
    return ok ? (void *)1 : NULL;
}

static void test_threads(void) {
    pthread_t t[4];
    for (int i = 0; i < 4; i++) CHECK(pthread_create(&t[i], NULL, worker, NULL) == 0);
    for (int i = 0; i < 4; i++) {
        void *ok = NULL;
        CHECK(pthread_join(t[i], &ok) == 0 && ok != NULL);
    }
}

int main(void) {
    err = x12kit_error_new();
    if (err == NULL) return 2;
    test_version();
    test_error_object();
    test_string_free();
    test_parse_and_write_round_trip();
    test_parse_diagnostics();
    test_parse_errors();
    test_write_errors();
    test_validate();
    test_acknowledge();
    test_structure_rules();
    test_stream_validator();
    test_webhook_sign();
    test_webhook_verify();
    test_webhook_standard();
    test_webhook_deliver();
    test_webhook_deliver_standard();
    test_webhook_deliver_errors();
    test_webhook_deliver_garbage();
    test_webhook_deliver_threads();
    test_render();
    test_split_and_rebuild_part();
    test_json_options();
    test_reader_buffer();
    test_reader_diagnostics();
    test_reader_stream();
    test_reader_errors();
    test_views_edge_cases();
    test_garbage();
    test_threads();
    x12kit_error_free(err);
    printf("x12kit C tests (library %s): %d checks, %d failed\n", x12kit_version(), checks, failures);
    return failures == 0 ? 0 : 1;
}
