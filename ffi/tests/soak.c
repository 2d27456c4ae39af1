/*
 * Soak of the C library (issue 34): one operation of each family called in a
 * loop, every result freed as the header says, N times (1,000 by default).
 *
 *   soak FILE [N] [--no-growth-check]
 *
 * ffi/tests/run.sh runs it twice: natively, where it also checks with
 * glibc's mallinfo2() that the bytes in use after the last call equal those
 * after call 100 (give or take 64 KiB, for caches the core fills once:
 * nothing accumulates while the loop runs, which a leak check at exit
 * cannot see), and under valgrind
 * --leak-check=full (with --no-growth-check: valgrind replaces malloc),
 * where any byte not freed at exit, or any invalid read or write, fails.
 * Prints one line per family and exits 0 when every call succeeded.
 */
#define _GNU_SOURCE /* mallinfo2 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "x12kit.h"

static int failures = 0;

#define CHECK(cond, what)                                                  \
  do {                                                                     \
    if (!(cond)) {                                                         \
      fprintf(stderr, "soak: %s failed (%s)\n", what,                      \
              x12kit_error_message(err) ? x12kit_error_message(err) : ""); \
      failures++;                                                          \
      return;                                                              \
    }                                                                      \
  } while (0)

static const uint8_t *input;
static size_t input_len;
static const char PARTNER[] =
    "{\"id\":\"acme\",\"sender\":{\"qualifier\":\"ZZ\",\"id\":\"WIDGETSUPPLY\"},"
    "\"receiver\":{\"qualifier\":\"01\",\"id\":\"123456789\"},\"version\":\"004010\"}";
static const char PAYLOAD[] =
    "{\"purchaseOrderNumber\":\"PO-1\",\"shipTo\":{\"id\":\"0003947268292\"},"
    "\"lines\":[{\"lineNumber\":1,\"sku\":\"WID-100\",\"quantity\":120,\"unitPrice\":9.25}]}";
static const char OPTIONS_999[] = "{\"kind\":\"999\"}";
static const char RENDER_OPTIONS[] = "{\"date\":\"20261122\",\"time\":\"0930\"}";
static const uint64_t NOW = 1700000000;

/* parse: JSON and diagnostics */
static void parse_family(struct x12kit_error *err) {
  struct x12kit_string json = {0};
  struct x12kit_diagnostics *diags = NULL;
  CHECK(x12kit_parse(input, input_len, &json, &diags, err) == X12KIT_STATUS_OK, "x12kit_parse");
  x12kit_diagnostics_free(diags);
  /* write: the parse result back to X12 */
  struct x12kit_string x12 = {0};
  enum x12kit_status s = x12kit_write(json.data, json.len, NULL, 0, &x12, err);
  x12kit_string_free(&json);
  CHECK(s == X12KIT_STATUS_OK && x12.len > 0, "x12kit_write");
  x12kit_string_free(&x12);
}

/* validate, then acknowledge and read the acknowledgement back */
static void validate_family(struct x12kit_error *err) {
  struct x12kit_string json = {0};
  struct x12kit_diagnostics *diags = NULL;
  CHECK(x12kit_validate(input, input_len, &json, &diags, err) == X12KIT_STATUS_OK, "x12kit_validate");
  x12kit_diagnostics_free(diags);
  x12kit_string_free(&json);
  struct x12kit_string ack = {0};
  CHECK(x12kit_acknowledge_with_json_options(input, input_len, OPTIONS_999, strlen(OPTIONS_999), NOW, &ack, err) ==
            X12KIT_STATUS_OK,
        "x12kit_acknowledge_with_json_options");
  struct x12kit_string read = {0};
  enum x12kit_status s = x12kit_read_acknowledgement((const uint8_t *)ack.data, ack.len, &read, err);
  x12kit_string_free(&ack);
  CHECK(s == X12KIT_STATUS_OK, "x12kit_read_acknowledgement");
  x12kit_string_free(&read);
}

/* the stream validator: new, feed in chunks, finish, free */
static void stream_family(struct x12kit_error *err) {
  struct x12kit_stream_validator *v = x12kit_stream_validator_new(NULL, err);
  CHECK(v != NULL, "x12kit_stream_validator_new");
  for (size_t at = 0; at < input_len; at += 97) {
    size_t n = input_len - at < 97 ? input_len - at : 97;
    if (x12kit_stream_validator_feed(v, input + at, n, err) != X12KIT_STATUS_OK) {
      x12kit_stream_validator_free(v);
      CHECK(0, "x12kit_stream_validator_feed");
    }
  }
  struct x12kit_string json = {0};
  struct x12kit_diagnostics *diags = NULL;
  enum x12kit_status s = x12kit_stream_validator_finish(v, &json, &diags, err);
  x12kit_stream_validator_free(v);
  CHECK(s == X12KIT_STATUS_OK, "x12kit_stream_validator_finish");
  x12kit_diagnostics_free(diags);
  x12kit_string_free(&json);
}

/* render */
static void render_family(struct x12kit_error *err) {
  struct x12kit_string x12 = {0};
  struct x12kit_issues *issues = NULL;
  CHECK(x12kit_render_with_json_options("850", 3, PAYLOAD, strlen(PAYLOAD), PARTNER, strlen(PARTNER), RENDER_OPTIONS,
                                        strlen(RENDER_OPTIONS), NOW, &x12, &issues, err) == X12KIT_STATUS_OK,
        "x12kit_render_with_json_options");
  x12kit_issues_free(issues);
  x12kit_string_free(&x12);
}

/* what the core describes of a segment (document_schema, of the same family
 * and far slower under valgrind, is freed the same way: test_x12kit.c) */
static void schema_family(struct x12kit_error *err) {
  struct x12kit_string described = {0};
  CHECK(x12kit_describe_segment("850", 3, "004010", 6, "BEG", 3, &described, err) == X12KIT_STATUS_OK,
        "x12kit_describe_segment");
  x12kit_string_free(&described);
}

/* the segment reader over the whole input */
static void reader_family(struct x12kit_error *err) {
  struct x12kit_reader *r = NULL;
  CHECK(x12kit_reader_new(input, input_len, &r, err) == X12KIT_STATUS_OK, "x12kit_reader_new");
  struct x12kit_segment seg;
  struct x12kit_diagnostic diag;
  size_t n = 0;
  enum x12kit_read got;
  while ((got = x12kit_reader_next(r, &seg, &diag, err)) == X12KIT_READ_SEGMENT || got == X12KIT_READ_DIAGNOSTIC) {
    n++;
  }
  x12kit_reader_free(r);
  CHECK(got == X12KIT_READ_END && n > 0, "x12kit_reader_next");
}

/* webhooks: sign and verify; a signer and a delivery */
static void webhook_family(struct x12kit_error *err) {
  static const char secret[] = "whsec-soak";
  struct x12kit_string sig = {0};
  CHECK(x12kit_webhook_sign((const uint8_t *)secret, strlen(secret), NOW, input, input_len, &sig, err) ==
            X12KIT_STATUS_OK,
        "x12kit_webhook_sign");
  struct x12kit_bytes secrets = {(const uint8_t *)secret, strlen(secret)};
  char ts[32];
  int ts_len = snprintf(ts, sizeof ts, "%llu", (unsigned long long)NOW);
  struct x12kit_webhook_verified verified;
  enum x12kit_status s = x12kit_webhook_verify(&secrets, 1, sig.data, sig.len, ts, (size_t)ts_len, input, input_len,
                                               NOW, 300, &verified, err);
  x12kit_string_free(&sig);
  CHECK(s == X12KIT_STATUS_OK, "x12kit_webhook_verify");
  struct x12kit_webhook_signer *signer = NULL;
  CHECK(x12kit_webhook_signer_new((const uint8_t *)secret, strlen(secret), NULL, 0, &signer, err) == X12KIT_STATUS_OK,
        "x12kit_webhook_signer_new");
  static const char data[] = "{\"documentId\":\"doc_1\",\"partnerId\":\"acme\",\"documentTypeCode\":\"850\","
                             "\"status\":\"validated\"}";
  struct x12kit_webhook_delivery *d = NULL;
  s = x12kit_webhook_deliver(signer, "document.validated", 18, data, strlen(data), NOW, &d, err);
  x12kit_webhook_signer_free(signer);
  CHECK(s == X12KIT_STATUS_OK, "x12kit_webhook_deliver");
  x12kit_webhook_delivery_free(d);
}

/* errors: a refused call fills the error object, which is reused */
static void error_family(struct x12kit_error *err) {
  struct x12kit_string json = {0};
  struct x12kit_diagnostics *diags = NULL;
  static const char bad[] = "{\"documents\":\"yes\"}";
  enum x12kit_status s = x12kit_parse_with_json_options(input, input_len, bad, strlen(bad), &json, &diags, err);
  if (s == X12KIT_STATUS_OK) {
    x12kit_string_free(&json);
    x12kit_diagnostics_free(diags);
  }
  CHECK(s != X12KIT_STATUS_OK && strcmp(x12kit_error_code(err), "INVALID_OPTIONS") == 0, "a refused call");
}

struct family {
  const char *name;
  void (*run)(struct x12kit_error *);
};

static const struct family FAMILIES[] = {
    {"parse + write", parse_family},
    {"validate + acknowledge + read_acknowledgement", validate_family},
    {"stream validator", stream_family},
    {"render", render_family},
    {"describe_segment", schema_family},
    {"reader", reader_family},
    {"webhook sign/verify + signer/delivery", webhook_family},
    {"errors", error_family},
};

static size_t in_use(void) {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: soak FILE [N] [--no-growth-check]\n");
    return 2;
  }
  long calls = 1000; /* at least 100: the growth check starts there */
  int growth_check = 1;
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--no-growth-check") == 0) growth_check = 0;
    else calls = strtol(argv[i], NULL, 10);
  }
  if (calls < 100) {
    fprintf(stderr, "soak: N must be at least 100\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 2;
  }
  static uint8_t buf[1 << 20];
  input_len = fread(buf, 1, sizeof buf, f);
  fclose(f);
  input = buf;

  struct x12kit_error *err = x12kit_error_new();
  for (size_t k = 0; k < sizeof FAMILIES / sizeof FAMILIES[0]; k++) {
    size_t at100 = 0;
    for (long i = 0; i < calls && failures == 0; i++) {
      FAMILIES[k].run(err);
      if (i == 99) at100 = in_use();
    }
    if (failures) {
      fprintf(stderr, "soak: %s: failed\n", FAMILIES[k].name);
      break;
    }
    size_t at_end = in_use();
    long grew = (long)at_end - (long)at100;
    printf("soak: %s x %ld: %s\n", FAMILIES[k].name, calls,
           growth_check ? (grew > 65536 ? "GREW" : "flat") : "ok");
    if (growth_check) printf("  bytes in use after call 100: %zu, after call %ld: %zu\n", at100, calls, at_end);
    if (growth_check && grew > 65536) failures++;
  }
  x12kit_error_free(err);
  return failures ? 1 : 0;
}
