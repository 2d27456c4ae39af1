//! Node addon x12kit (napi-rs) (under construction).
