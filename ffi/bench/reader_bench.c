/*
 * Throughput of the C streaming and whole-buffer readers of libx12kit
 * (ffi/bench/run.sh drives it; see benches/README.md for the figures).
 *
 *   reader_bench FILE SEGMENTS ELEMENTS PIECES PIECE_BYTES [RUNS]
 *
 * Reads FILE into memory once (not timed), then times, best of RUNS:
 *   buffer_segments     x12kit_reader_new over the buffer, count segments
 *   buffer_elements     the same, plus every element -> repetitions -> components
 *   stream64k_segments  x12kit_reader_new_stream fed 64 KiB chunks of the buffer
 *   stream64k_elements  the same, plus every element -> repetitions -> components
 *   stream64k_split_in_c  the stream, with elements split by the C program itself
 *                       from seg.data and seg.delimiters (no call per element)
 * and checks every run's counts against the expected ones (from the generator),
 * so a fast wrong answer fails. Prints "c <name> <MB/s> <best seconds>".
 */
#define _POSIX_C_SOURCE 199309L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "x12kit.h"

#define CHUNK (64 * 1024)

typedef struct {
    size_t segments, elements, pieces, piece_bytes;
} counts;

static void walk(counts *c, const x12kit_segment *seg, int elements) {
    c->segments++;
    if (!elements) return;
    x12kit_iter els, reps, comps;
    x12kit_element el, rep, comp;
    x12kit_segment_elements(seg, &els);
    while (x12kit_iter_next(&els, &el)) {
        c->elements++;
        x12kit_element_repetitions(&el, &reps);
        while (x12kit_iter_next(&reps, &rep)) {
            x12kit_element_components(&rep, &comps);
            while (x12kit_iter_next(&comps, &comp)) {
                c->pieces++;
                c->piece_bytes += comp.len;
            }
        }
    }
}

/* The same walk without a call per element: split seg.data with its delimiters. */
static void split_in_c(counts *c, const x12kit_segment *seg) {
    c->segments++;
    const uint8_t *p = seg->data + seg->id_len, *end = seg->data + seg->len;
    if (p >= end) return; /* no elements */
    const x12kit_delimiters d = seg->delimiters;
    p++; /* the element separator after the identifier */
    for (;;) {
        const uint8_t *e = memchr(p, d.element, (size_t)(end - p));
        const uint8_t *stop = e ? e : end;
        c->elements++;
        /* pieces: repetitions, then components */
        const uint8_t *q = p;
        for (;;) {
            const uint8_t *r = d.has_repetition ? memchr(q, d.repetition, (size_t)(stop - q)) : NULL;
            const uint8_t *rstop = r ? r : stop;
            const uint8_t *k = q;
            for (;;) {
                const uint8_t *m = memchr(k, d.component, (size_t)(rstop - k));
                const uint8_t *kstop = m ? m : rstop;
                c->pieces++;
                c->piece_bytes += (size_t)(kstop - k);
                if (!m) break;
                k = m + 1;
            }
            if (!r) break;
            q = r + 1;
        }
        if (!e) break;
        p = e + 1;
    }
}

static void fail(const char *what) {
    fprintf(stderr, "reader_bench: %s\n", what);
    exit(1);
}

static counts read_buffer(const uint8_t *data, size_t len, int elements) {
    counts c = {0, 0, 0, 0};
    x12kit_reader *r = NULL;
    x12kit_segment seg;
    if (x12kit_reader_new(data, len, &r, NULL) != X12KIT_STATUS_OK) fail("x12kit_reader_new");
    x12kit_read what;
    /* A non-NULL diagnostic_out, so that a diagnostic stops the count. */
    x12kit_diagnostic d;
    while ((what = x12kit_reader_next(r, &seg, &d, NULL)) == X12KIT_READ_SEGMENT) walk(&c, &seg, elements);
    if (what != X12KIT_READ_END) fail("unexpected diagnostic or error");
    x12kit_reader_free(r);
    return c;
}

static counts read_stream(const uint8_t *data, size_t len, int elements) {
    counts c = {0, 0, 0, 0};
    x12kit_reader *r = NULL;
    x12kit_segment seg;
    x12kit_diagnostic d;
    size_t pos = 0;
    if (x12kit_reader_new_stream(&r, NULL) != X12KIT_STATUS_OK) fail("x12kit_reader_new_stream");
    for (;;) {
        x12kit_read what = x12kit_reader_next(r, &seg, &d, NULL);
        if (what == X12KIT_READ_SEGMENT) {
            if (elements == 2)
                split_in_c(&c, &seg);
            else
                walk(&c, &seg, elements);
        } else if (what == X12KIT_READ_NEED_INPUT) {
            size_t n = len - pos < CHUNK ? len - pos : CHUNK;
            if (n > 0) {
                x12kit_reader_feed(r, data + pos, n, NULL);
                pos += n;
            } else {
                x12kit_reader_finish(r, NULL);
            }
        } else if (what == X12KIT_READ_END) {
            break;
        } else {
            fail("unexpected diagnostic or error");
        }
    }
    x12kit_reader_free(r);
    return c;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: %s FILE SEGMENTS ELEMENTS PIECES PIECE_BYTES [RUNS]\n", argv[0]);
        return 2;
    }
    counts want = {strtoull(argv[2], NULL, 10), strtoull(argv[3], NULL, 10), strtoull(argv[4], NULL, 10),
                   strtoull(argv[5], NULL, 10)};
    int runs = argc == 7 ? atoi(argv[6]) : 5;
    FILE *f = fopen(argv[1], "rb");
    if (f == NULL) {
        perror(argv[1]);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc((size_t)size);
    if (data == NULL || fread(data, 1, (size_t)size, f) != (size_t)size) fail("cannot read the input");
    fclose(f);

    struct {
        const char *name;
        counts (*read)(const uint8_t *, size_t, int);
        int elements;
    } benches[] = {{"buffer_segments", read_buffer, 0},
                   {"buffer_elements", read_buffer, 1},
                   {"stream64k_segments", read_stream, 0},
                   {"stream64k_elements", read_stream, 1},
                   {"stream64k_split_in_c", read_stream, 2}};
    for (size_t b = 0; b < sizeof benches / sizeof benches[0]; b++) {
        double best = 1e30;
        for (int i = 0; i < runs; i++) {
            double t = now();
            counts c = benches[b].read(data, (size_t)size, benches[b].elements);
            double secs = now() - t;
            counts expect = want;
            if (!benches[b].elements) expect.elements = expect.pieces = expect.piece_bytes = 0;
            if (memcmp(&c, &expect, sizeof c) != 0) {
                fprintf(stderr, "%s: got %zu %zu %zu %zu, expected %zu %zu %zu %zu\n", benches[b].name,
                        c.segments, c.elements, c.pieces, c.piece_bytes, expect.segments, expect.elements,
                        expect.pieces, expect.piece_bytes);
                return 1;
            }
            if (secs < best) best = secs;
        }
        printf("c %s %.0f %.4f\n", benches[b].name, (double)size / 1e6 / best, best);
    }
    free(data);
    return 0;
}
