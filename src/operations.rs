//! What database administrators run around the extension's tables (docs/operations.md):
//! `dealcards_sync_sequences()`, which sets the extension's sequences from its tables after a
//! switch-over to a logical-replication subscriber, and `dealcards_check()`, which names what no
//! foreign key holds between them. Plain SQL (sql/install/operations.sql): it reads maxima, sets
//! sequences and joins tables, nothing the library computes.

use pgrx::extension_sql_file;

extension_sql_file!(
    "../sql/install/operations.sql",
    name = "operations",
    requires = ["dealing_tables", "playlist_tables", "fair_tables"]
);
