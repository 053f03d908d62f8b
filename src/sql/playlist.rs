//! SQL functions for shuffle queues, with their state in the extension's tables.
