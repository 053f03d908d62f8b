//! What database administrators run around the extension's tables (docs/operations.md):
//! `dealcards_sync_sequences()`, which sets the extension's sequences from its tables after a
//! switch-over to a logical-replication subscriber. Plain SQL (sql/install/operations.sql): it
//! reads maxima and sets sequences, nothing the library computes.

use pgrx::extension_sql_file;

extension_sql_file!(
    "../sql/install/operations.sql",
    name = "operations",
    requires = ["dealing_tables", "playlist_tables"]
);
