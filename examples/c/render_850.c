/*
 * render_850: render an 850 purchase order for a trading partner with
 * libx12kit and print the X12 (problems, if any, go to stderr).
 *
 *   render_850 [PAYLOAD.json [PARTNER.json [CONTROL_NUMBER]]]
 *
 * Defaults: examples/payloads/850.json, examples/partners/acme-retail.json,
 * control number 1 for the interchange, group and set; the date and time are
 * the current UTC ones unless X12KIT_DATE=CCYYMMDD and X12KIT_TIME=HHMM are set.
 * Exit status: 0 rendered, 1 refused (every problem is listed), 2 usage or I/O.
 *
 * Build: gcc -std=c99 -Wall -Wextra -Werror examples/c/render_850.c -Iinclude \
 *            -Ltarget/release -lx12kit -Wl,-rpath,$PWD/target/release -o render_850
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "x12kit.h"

static char *read_text(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf != NULL && (n += fread(buf + n, 1, cap - n, f)) == cap) {
        char *bigger = realloc(buf, cap *= 2);
        if (bigger == NULL) free(buf);
        buf = bigger;
    }
    if (buf != NULL && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

int main(int argc, char **argv) {
    if (argc > 4) {
        fprintf(stderr, "usage: %s [PAYLOAD.json [PARTNER.json [CONTROL_NUMBER]]]\n", argv[0]);
        return 2;
    }
    const char *payload_path = argc > 1 ? argv[1] : "examples/payloads/850.json";
    const char *partner_path = argc > 2 ? argv[2] : "examples/partners/acme-retail.json";
    unsigned long control = argc > 3 ? strtoul(argv[3], NULL, 10) : 1;

    size_t payload_len = 0, partner_len = 0;
    char *payload = read_text(payload_path, &payload_len);
    char *partner = read_text(partner_path, &partner_len);
    if (payload == NULL || partner == NULL) {
        perror(payload == NULL ? payload_path : partner_path);
        free(payload);
        free(partner);
        return 2;
    }

    const char *date = getenv("X12KIT_DATE"), *time = getenv("X12KIT_TIME");
    x12kit_render_options options = {(uint32_t)control, (uint32_t)control, (uint32_t)control, date,
                                      date ? strlen(date) : 0, time, time ? strlen(time) : 0};
    x12kit_error *err = x12kit_error_new();
    x12kit_string x12 = {0};
    x12kit_issues *issues = NULL;
    x12kit_status status =
        x12kit_render("850", 3, payload, payload_len, partner, partner_len, &options, &x12, &issues, err);

    /* Warnings on success, every problem on refusal. */
    x12kit_issue issue;
    for (size_t i = 0; x12kit_issues_get(issues, i, &issue); i++)
        fprintf(stderr, "%s: %s %s %s: %s\n", payload_path,
                issue.severity == X12KIT_SEVERITY_ERROR ? "error" : "warning", issue.code, issue.pointer,
                issue.message);
    int code = 0;
    if (status == X12KIT_STATUS_OK) {
        fwrite(x12.data, 1, x12.len, stdout);
    } else {
        fprintf(stderr, "%s: not rendered: %s\n", payload_path, x12kit_error_code(err));
        if (issues == NULL) fprintf(stderr, "%s\n", x12kit_error_message(err));
        code = status == X12KIT_STATUS_REJECTED || status == X12KIT_STATUS_INVALID_INPUT ? 1 : 2;
    }

    x12kit_issues_free(issues);
    x12kit_string_free(&x12);
    x12kit_error_free(err);
    free(payload);
    free(partner);
    return code;
}
