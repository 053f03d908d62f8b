//! SQL functions for FreeCell deals.
