//! Sampling without replacement: from arrays and from huge integer ranges.
