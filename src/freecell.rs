//! Microsoft FreeCell's numbered deals (seed 001).
