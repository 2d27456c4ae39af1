/*
 * validate_file: parse and validate an X12 file with libx12kit and print its
 * diagnostics (parser findings and envelope rules: counts, control numbers,
 * ISA/GS values, ...).
 *
 *   validate_file FILE|-               diagnostics, one per line, and a summary
 *   validate_file --json FILE|-        the JSON validation result
 *   validate_file --parse-json FILE|-  the JSON parse result
 *   validate_file --ack FILE|-         the TA1 / 997 / 999 acknowledgement (X12)
 *
 * Exit status: 0 valid, 1 the file has error diagnostics, 2 usage or I/O.
 *
 * Build: gcc -std=c99 -Wall -Wextra -Werror examples/c/validate_file.c -Iinclude \
 *            -Ltarget/release -lx12kit -Wl,-rpath,$PWD/target/release -o validate_file
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
    const char *mode = argc == 3 ? argv[1] : "";
    if (!(argc == 2 || (argc == 3 && (strcmp(mode, "--json") == 0 || strcmp(mode, "--parse-json") == 0 ||
                                      strcmp(mode, "--ack") == 0)))) {
        fprintf(stderr, "usage: %s [--json|--parse-json|--ack] FILE|-\n", argv[0]);
        return 2;
    }
    const char *path = argv[argc - 1];
    size_t len = 0;
    unsigned char *input = read_all(path, &len);
    if (input == NULL) {
        perror(path);
        return 2;
    }

    x12kit_error *err = x12kit_error_new();
    x12kit_string out = {0};
    x12kit_diagnostics *diags = NULL;
    x12kit_status status;
    if (strcmp(mode, "--parse-json") == 0)
        status = x12kit_parse(input, len, &out, &diags, err);
    else if (strcmp(mode, "--ack") == 0)
        status = x12kit_validate(input, len, NULL, &diags, err) != X12KIT_STATUS_OK
                     ? x12kit_error_status(err)
                     : x12kit_acknowledge(input, len, NULL, &out, err);
    else
        status = x12kit_validate(input, len, strcmp(mode, "--json") == 0 ? &out : NULL, &diags, err);
    if (status != X12KIT_STATUS_OK) {
        fprintf(stderr, "%s: %s: %s\n", path, x12kit_error_code(err), x12kit_error_message(err));
        x12kit_diagnostics_free(diags);
        x12kit_error_free(err);
        free(input);
        return 2;
    }

    if (out.data != NULL) {
        fwrite(out.data, 1, out.len, stdout);
        if (mode[2] != 'a') putchar('\n'); /* JSON gets a line break; X12 has its own */
    } else {
        size_t count = x12kit_diagnostics_count(diags);
        for (size_t i = 0; i < count; i++) {
            x12kit_diagnostic d;
            if (x12kit_diagnostics_get(diags, i, &d)) print_diagnostic(path, &d);
        }
        printf("%s: %zu bytes, %zu diagnostics (%zu errors): %s\n", path, len, count,
               x12kit_diagnostics_error_count(diags), x12kit_diagnostics_error_count(diags) ? "invalid" : "valid");
    }
    int code = x12kit_diagnostics_error_count(diags) > 0 ? 1 : 0;

    x12kit_string_free(&out);
    x12kit_diagnostics_free(diags);
    x12kit_error_free(err);
    free(input);
    return code;
}
