/*
 * parse_file: parse an X12 file with libx12kit and print its diagnostics
 * (or, with --json, the JSON parse result).
 *
 *   parse_file [--json] FILE|-
 *
 * Exit status: 0 no errors, 1 the file has error diagnostics, 2 usage or I/O.
 *
 * Build: gcc -std=c99 -Wall -Wextra -Werror examples/c/parse_file.c -Iinclude \
 *            -Ltarget/release -lx12kit -Wl,-rpath,$PWD/target/release -o parse_file
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "x12kit.h"

/* Reads a whole file (or stdin for "-") into a malloc'd buffer. */
static unsigned char *read_all(const char *path, size_t *len) {
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL) return NULL;
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf != NULL) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap) break;
        unsigned char *bigger = realloc(buf, cap *= 2);
        if (bigger == NULL) free(buf);
        buf = bigger;
    }
    int failed = ferror(f);
    if (f != stdin) fclose(f);
    if (failed) {
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

/* Prints one diagnostic the way the x12kit CLI does:
 * "error SE_MISSING: <message> [segment 12 (GE), element 2, byte 480]". */
static void print_diagnostic(const char *path, const x12kit_diagnostic *d) {
    printf("%s: %s %s: %s", path, d->severity == X12KIT_SEVERITY_ERROR ? "error" : "warning", d->code,
           d->message);
    const char *sep = " [";
    if (d->segment_index != X12KIT_NONE) {
        printf("%ssegment %zu", sep, d->segment_index);
        if (d->segment_id != NULL) printf(" (%s)", d->segment_id);
        sep = ", ";
    }
    if (d->element != 0) {
        printf("%selement %u", sep, (unsigned)d->element);
        sep = ", ";
    }
    if (d->offset != X12KIT_NONE) {
        printf("%sbyte %zu", sep, d->offset);
        sep = ", ";
    }
    printf("%s\n", sep[0] == ',' ? "]" : "");
}

int main(int argc, char **argv) {
    int json = argc == 3 && strcmp(argv[1], "--json") == 0;
    if (argc != 2 + json) {
        fprintf(stderr, "usage: %s [--json] FILE|-\n", argv[0]);
        return 2;
    }
    const char *path = argv[1 + json];
    size_t len = 0;
    unsigned char *input = read_all(path, &len);
    if (input == NULL) {
        perror(path);
        return 2;
    }

    x12kit_error *err = x12kit_error_new();
    x12kit_string out = {0};
    x12kit_diagnostics *diags = NULL;
    x12kit_status status = x12kit_parse(input, len, json ? &out : NULL, &diags, err);
    if (status != X12KIT_STATUS_OK) {
        fprintf(stderr, "%s: %s: %s\n", path, x12kit_error_code(err), x12kit_error_message(err));
        x12kit_error_free(err);
        free(input);
        return 2;
    }

    if (json) {
        fwrite(out.data, 1, out.len, stdout);
        putchar('\n');
    } else {
        size_t count = x12kit_diagnostics_count(diags);
        for (size_t i = 0; i < count; i++) {
            x12kit_diagnostic d;
            if (x12kit_diagnostics_get(diags, i, &d)) print_diagnostic(path, &d);
        }
        printf("%s: %zu bytes, %zu diagnostics (%zu errors)\n", path, len, count,
               x12kit_diagnostics_error_count(diags));
    }
    int code = x12kit_diagnostics_error_count(diags) > 0 ? 1 : 0;

    x12kit_string_free(&out);
    x12kit_diagnostics_free(diags);
    x12kit_error_free(err);
    free(input);
    return code;
}
