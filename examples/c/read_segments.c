/*
 * read_segments: walk every segment, element, repetition and component of an
 * X12 file with the zero-copy reader of libx12kit, printing one line per
 * segment ("12 @480 PO1 | 1 | 10 | EA | ..."), then totals.
 *
 *   read_segments FILE|-               whole file in memory, views point into it
 *   read_segments --stream N FILE|-    read N bytes at a time: memory stays bounded
 *
 * Exit status: 0 no tokenizer errors, 1 some, 2 usage or I/O.
 *
 * Build: gcc -std=c99 -Wall -Wextra -Werror examples/c/read_segments.c -Iinclude \
 *            -Ltarget/release -lx12kit -Wl,-rpath,$PWD/target/release -o read_segments
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "x12kit.h"

static size_t segments, elements, errors;

static void print_bytes(const uint8_t *data, size_t len) { fwrite(data, 1, len, stdout); }

/* Prints a segment: id, then each element with repetitions joined by '^'
 * and components by ':' (whatever the file's own delimiters are). */
static void print_segment(const x12kit_segment *seg) {
    printf("%zu @%zu ", seg->index, seg->offset);
    print_bytes(seg->data, seg->id_len);
    x12kit_iter els, reps, comps;
    x12kit_element el, rep, comp;
    /* ISA16 is the component separator itself: print ISA elements as they are. */
    int isa = seg->id_len == 3 && memcmp(seg->data, "ISA", 3) == 0;
    x12kit_segment_elements(seg, &els);
    while (x12kit_iter_next(&els, &el)) {
        elements++;
        printf(" |");
        if (el.len == 0) continue;
        putchar(' ');
        if (isa) {
            print_bytes(el.data, el.len);
            continue;
        }
        x12kit_element_repetitions(&el, &reps);
        for (int r = 0; x12kit_iter_next(&reps, &rep); r++) {
            if (r > 0) putchar('^');
            x12kit_element_components(&rep, &comps);
            for (int c = 0; x12kit_iter_next(&comps, &comp); c++) {
                if (c > 0) putchar(':');
                print_bytes(comp.data, comp.len);
            }
        }
    }
    putchar('\n');
    segments++;
}

static void print_diagnostic(const x12kit_diagnostic *d) {
    if (d->severity == X12KIT_SEVERITY_ERROR) errors++;
    fprintf(stderr, "%s %s: %s\n", d->severity == X12KIT_SEVERITY_ERROR ? "error" : "warning", d->code,
            d->message);
}

/* Handles what the reader returned; false at the end (or on an error). */
static int handle(x12kit_read what, const x12kit_segment *seg, const x12kit_diagnostic *d,
                  x12kit_error *err) {
    switch (what) {
    case X12KIT_READ_SEGMENT: print_segment(seg); return 1;
    case X12KIT_READ_DIAGNOSTIC: print_diagnostic(d); return 1;
    case X12KIT_READ_ERROR:
        fprintf(stderr, "%s: %s\n", x12kit_error_code(err), x12kit_error_message(err));
        errors++;
        return 0;
    default: return 0;
    }
}

int main(int argc, char **argv) {
    size_t chunk = 0;
    if (argc == 4 && strcmp(argv[1], "--stream") == 0) chunk = (size_t)strtoul(argv[2], NULL, 10);
    if ((argc != 2 && argc != 4) || (argc == 4 && chunk == 0)) {
        fprintf(stderr, "usage: %s [--stream CHUNK_BYTES] FILE|-\n", argv[0]);
        return 2;
    }
    const char *path = argv[argc - 1];
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return 2;
    }
    x12kit_error *err = x12kit_error_new();
    x12kit_reader *reader = NULL;
    x12kit_segment seg;
    x12kit_diagnostic d;
    x12kit_read what;
    int io_error = 0;

    if (chunk > 0) {
        /* Streaming: views are valid until the next call on the reader. */
        unsigned char *buf = malloc(chunk);
        if (buf == NULL || x12kit_reader_new_stream(&reader, err) != X12KIT_STATUS_OK) return 2;
        for (;;) {
            what = x12kit_reader_next(reader, &seg, &d, err);
            if (what == X12KIT_READ_NEED_INPUT) {
                size_t n = fread(buf, 1, chunk, f);
                if (n > 0)
                    x12kit_reader_feed(reader, buf, n, err);
                else {
                    io_error = ferror(f);
                    x12kit_reader_finish(reader, err);
                }
                continue;
            }
            if (!handle(what, &seg, &d, err)) break;
        }
        free(buf);
    } else {
        /* Whole buffer: views point into `input` and live as long as it. */
        size_t cap = 1 << 16, len = 0;
        unsigned char *input = malloc(cap);
        while (input != NULL && (len += fread(input + len, 1, cap - len, f)) == cap) {
            unsigned char *bigger = realloc(input, cap *= 2);
            if (bigger == NULL) free(input);
            input = bigger;
        }
        io_error = input == NULL || ferror(f);
        if (!io_error && x12kit_reader_new(input, len, &reader, err) == X12KIT_STATUS_OK) {
            while (handle(x12kit_reader_next(reader, &seg, &d, err), &seg, &d, err)) {
            }
        }
        x12kit_reader_free(reader);
        reader = NULL;
        free(input);
    }
    if (f != stdin) fclose(f);
    x12kit_reader_free(reader);
    x12kit_error_free(err);
    if (io_error) {
        fprintf(stderr, "%s: read error\n", path);
        return 2;
    }
    printf("%zu segments, %zu elements, %zu errors\n", segments, elements, errors);
    return errors > 0 ? 1 : 0;
}
