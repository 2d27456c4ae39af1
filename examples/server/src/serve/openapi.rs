//! The answers of the serving layer in the OpenAPI document: every API operation can be
//! answered 408 (its body arrived too slowly) and 503 (shed, the store unavailable, the
//! server out of time), with the one error body.

use utoipa::openapi::{ContentBuilder, OpenApi, Ref, RefOr, ResponseBuilder};

/// Adds the 408 and 503 answers to every operation under `/api` and `/v1`.
pub fn add_responses(doc: &mut OpenApi) {
    let answer = |description: &str| {
        RefOr::T(
            ResponseBuilder::new()
                .description(description)
                .content(
                    "application/json",
                    ContentBuilder::new()
                        .schema(Some(Ref::from_schema_name("ErrorBody")))
                        .build(),
                )
                .build(),
        )
    };
    for (path, item) in doc.paths.paths.iter_mut() {
        if !(path.starts_with("/api/") || path.starts_with("/v1/"))
            || path.ends_with("/openapi.json")
        {
            continue;
        }
        for op in [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
        ]
        .into_iter()
        .flatten()
        {
            let r = &mut op.responses.responses;
            r.entry("408".into()).or_insert_with(|| {
                answer("`REQUEST_TIMEOUT`: the request body arrived slower than the server's minimum rate, or not within the request's time; the connection is closed.")
            });
            r.entry("503".into()).or_insert_with(|| {
                answer("`OVERLOADED`: the route group or the memory for request bodies is at capacity (load shedding); `STORE_UNAVAILABLE`: the store cannot take the request now (a full disk, the database restarting), nothing of it was written; `SERVER_TIMEOUT`: no answer within the request's time. Each with `Retry-After`.")
            });
        }
    }
}
