//! Python module x12kit (pyo3) (under construction).
