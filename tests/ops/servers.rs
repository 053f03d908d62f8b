//! Servers of the tests' own: PostgreSQL clusters made with initdb in a scratch folder and started
//! with pg_ctl, and a PgBouncer in front of one. Each is stopped when dropped, even when its test
//! fails.
//!
//! scripts/test_ops.sh sets where they live (DEALCARDS_OPS_DIR, a folder the server's OS user
//! may write) and, as root, the OS user that runs them (DEALCARDS_OPS_RUNAS: PostgreSQL and
//! PgBouncer refuse to run as root).

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use postgres::{Client, NoTls, SimpleQueryMessage};

/// The superuser of every cluster here (initdb -U).
pub const SUPERUSER: &str = "postgres";

/// The scratch folder of one server, `name`, emptied first.
pub fn scratch(name: &str) -> PathBuf {
    let root = std::env::var("DEALCARDS_OPS_DIR")
        .expect("DEALCARDS_OPS_DIR is not set: run these tests with scripts/test_ops.sh");
    let dir = Path::new(&root).join(name);
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    std::fs::create_dir_all(&dir).unwrap();
    chown_to_server_user(&dir);
    dir
}

/// The bin folder of a PostgreSQL: `variable` names it (set by scripts/test_ops.sh).
pub fn bin_dir(variable: &str) -> PathBuf {
    PathBuf::from(std::env::var(variable).unwrap_or_else(|_| {
        panic!("{variable} is not set: run these tests with scripts/test_ops.sh")
    }))
}

fn runas() -> Option<String> {
    std::env::var("DEALCARDS_OPS_RUNAS")
        .ok()
        .filter(|u| !u.is_empty())
}

fn chown_to_server_user(path: &Path) {
    if let Some(user) = runas() {
        let status = Command::new("chown")
            .args(["-R", &format!("{user}:")])
            .arg(path)
            .status()
            .unwrap();
        assert!(status.success(), "chown {}", path.display());
    }
}

/// `program`, to be run as the servers' OS user.
fn server_user_command(program: &Path) -> Command {
    match runas() {
        Some(user) => {
            let mut c = Command::new("runuser");
            c.args(["-u", &user, "--"]).arg(program);
            c
        }
        None => Command::new(program),
    }
}

/// Runs `program` as the servers' OS user, in `dir`; panics with what it printed if it fails.
pub fn run_as_server_user(program: &Path, args: &[&str], dir: &Path) -> Output {
    let mut command = server_user_command(program);
    command.args(args).current_dir(dir);
    run(command)
}

/// Runs a command with no input; panics with the command and what it printed if it fails.
pub fn run(mut command: Command) -> Output {
    let shown = format!("{command:?}");
    let output = command
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("{shown} does not run: {e}"));
    assert!(
        output.status.success(),
        "{shown} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// A TCP port of 127.0.0.1 that nothing listens on now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The major version of the PostgreSQL in `bin`.
pub fn major_of(bin: &Path) -> u32 {
    let out = Command::new(bin.join("pg_config"))
        .arg("--version")
        .output()
        .expect("pg_config runs");
    let text = String::from_utf8_lossy(&out.stdout);
    text.split_whitespace()
        .nth(1)
        .and_then(|v| v.split('.').next())
        .and_then(|m| m.parse().ok())
        .unwrap_or_else(|| panic!("no version in {text:?}"))
}

/// A PostgreSQL cluster of one major, in `<scratch>/data`.
pub struct Cluster {
    pub bin: PathBuf,
    pub dir: PathBuf,
    pub data: PathBuf,
    pub port: u16,
    options: Vec<String>,
    running: bool,
    started_once: bool,
}

impl Cluster {
    /// initdb of a new cluster (UTF8, C locale, data checksums as PostgreSQL 18's default),
    /// not started; `options` are server settings (`-c name=value` words) for every start.
    pub fn init(bin: &Path, name: &str, options: &[&str]) -> Cluster {
        let dir = scratch(name);
        let data = dir.join("data");
        let data_arg = data.display().to_string();
        run_as_server_user(
            &bin.join("initdb"),
            &[
                "-D",
                &data_arg,
                "-A",
                "trust",
                "-U",
                SUPERUSER,
                "-E",
                "UTF8",
                "--locale=C",
                "--data-checksums",
                "--no-sync",
            ],
            &dir,
        );
        Cluster {
            bin: bin.to_path_buf(),
            dir,
            data,
            port: free_port(),
            options: options.iter().map(|o| o.to_string()).collect(),
            running: false,
            started_once: false,
        }
    }

    /// A hot standby of `primary` (running), from pg_basebackup with the settings that make it
    /// follow the primary (`-R`), in scratch folder `name`; not started.
    pub fn standby_of(primary: &Cluster, name: &str) -> Cluster {
        Self::base_backup_of(primary, name, &["-R"])
    }

    /// A copy of `primary` (running) from pg_basebackup without the settings of a standby: it
    /// starts as a primary of its own, on the same timeline, with the same files; not started.
    pub fn copy_of(primary: &Cluster, name: &str) -> Cluster {
        Self::base_backup_of(primary, name, &[])
    }

    /// pg_basebackup of `primary` (WAL streamed with it) with `options`, in scratch folder
    /// `name`. Its checkpoint is a fast one: a spread one takes most of checkpoint_timeout
    /// however little there is to write.
    fn base_backup_of(primary: &Cluster, name: &str, options: &[&str]) -> Cluster {
        let dir = scratch(name);
        let data = dir.join("data");
        let (data_arg, port) = (data.display().to_string(), primary.port.to_string());
        let mut args = vec![
            "-h",
            "127.0.0.1",
            "-p",
            &port,
            "-U",
            SUPERUSER,
            "-D",
            &data_arg,
            "-X",
            "stream",
            "--checkpoint=fast",
            "--no-sync",
        ];
        args.extend(options);
        run_as_server_user(&primary.bin.join("pg_basebackup"), &args, &dir);
        Cluster {
            bin: primary.bin.clone(),
            dir,
            data,
            port: free_port(),
            options: primary.options.clone(),
            running: false,
            started_once: false,
        }
    }

    /// Starts the server. A port found free may be taken by another program before the server
    /// binds it: a cluster that never ran (no standby or pooler knows its port yet) then takes
    /// another port, up to three times.
    pub fn start(&mut self) {
        let log_path = self.dir.join("server.log");
        let log = log_path.display().to_string();
        let data = self.data.display().to_string();
        for attempt in 1.. {
            let options = format!(
                "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60 {}",
                self.port,
                self.dir.display(),
                self.options.join(" ")
            );
            let mut command = server_user_command(&self.bin.join("pg_ctl"));
            command.current_dir(&self.dir).args([
                "-D", &data, "-l", &log, "-w", "-t", "60", "-o", &options, "start",
            ]);
            let shown = format!("{command:?}");
            let output = command
                .stdin(std::process::Stdio::null())
                .output()
                .unwrap_or_else(|e| panic!("{shown} does not run: {e}"));
            if output.status.success() {
                break;
            }
            let server_log = std::fs::read_to_string(&log_path).unwrap_or_default();
            let port_taken = server_log.contains("could not bind");
            assert!(
                port_taken && !self.started_once && attempt < 3,
                "{shown} failed:\n{}\n{}\nserver log:\n{server_log}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
            self.port = free_port();
        }
        self.running = true;
        self.started_once = true;
    }

    /// Starts the server again after a crash (`pg_ctl stop -m immediate`), on another port if
    /// another program took its own meanwhile: for a server no standby or pooler follows, whose
    /// clients ask it for its port.
    pub fn start_again(&mut self) {
        self.started_once = false;
        self.start();
    }

    /// Promotes a standby (`pg_ctl promote`, waiting until it takes writes): it goes on under a
    /// new timeline.
    pub fn promote(&mut self) {
        let data = self.data.display().to_string();
        run_as_server_user(
            &self.bin.join("pg_ctl"),
            &["-D", &data, "-w", "-t", "60", "promote"],
            &self.dir,
        );
    }

    pub fn stop(&mut self) {
        if self.running {
            let data = self.data.display().to_string();
            run_as_server_user(
                &self.bin.join("pg_ctl"),
                &["-D", &data, "-m", "fast", "-w", "stop"],
                &self.dir,
            );
            self.running = false;
        }
    }

    /// The libpq connection string of database `dbname` over TCP.
    pub fn dsn(&self, dbname: &str) -> String {
        format!(
            "host=127.0.0.1 port={} user={SUPERUSER} dbname={dbname}",
            self.port
        )
    }

    /// `program` (pg_dump, pg_restore, psql) of the PostgreSQL in `bin`, as a client of this
    /// cluster's superuser.
    pub fn client_tool(&self, bin: &Path, program: &str) -> Command {
        let mut command = Command::new(bin.join(program));
        command
            .env("PGHOST", "127.0.0.1")
            .env("PGPORT", self.port.to_string())
            .env("PGUSER", SUPERUSER);
        command
    }

    pub fn connect(&self, dbname: &str) -> Client {
        Client::connect(&self.dsn(dbname), NoTls)
            .unwrap_or_else(|e| panic!("cannot connect to {dbname} on port {}: {e}", self.port))
    }

    /// A new database `dbname` with the extension created in it; a connection to it.
    pub fn database_with_dealcards(&self, dbname: &str) -> Client {
        self.connect("postgres")
            .batch_execute(&format!("CREATE DATABASE {dbname}"))
            .unwrap();
        let mut client = self.connect(dbname);
        client.batch_execute("CREATE EXTENSION dealcards").unwrap();
        client
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if self.running {
            let data = self.data.display().to_string();
            let _ = server_user_command(&self.bin.join("pg_ctl"))
                .args(["-D", &data, "-m", "immediate", "-w", "stop"])
                .output();
        }
    }
}

/// A PgBouncer (Debian's package) in front of one cluster, in scratch folder `name`, with one
/// pool per entry of `pools`: (the name clients connect to as their database, the pool mode, the
/// pool size), all to the cluster's database `dbname`.
pub struct Bouncer {
    pub port: u16,
    dir: PathBuf,
}

impl Bouncer {
    pub fn start(
        cluster: &Cluster,
        name: &str,
        dbname: &str,
        pools: &[(&str, &str, u32)],
    ) -> Bouncer {
        let dir = scratch(name);
        let port = free_port();
        let mut config = String::from("[databases]\n");
        for (name, mode, size) in pools {
            config.push_str(&format!(
                "{name} = host=127.0.0.1 port={} dbname={dbname} pool_mode={mode} pool_size={size}\n",
                cluster.port
            ));
        }
        config.push_str(&format!(
            "[pgbouncer]\n\
             listen_addr = 127.0.0.1\n\
             listen_port = {port}\n\
             unix_socket_dir =\n\
             auth_type = trust\n\
             auth_file = {dir}/users.txt\n\
             pidfile = {dir}/pgbouncer.pid\n\
             logfile = {dir}/pgbouncer.log\n\
             max_client_conn = 200\n\
             ignore_startup_parameters = extra_float_digits\n",
            dir = dir.display()
        ));
        std::fs::write(dir.join("pgbouncer.ini"), config).unwrap();
        std::fs::write(dir.join("users.txt"), format!("\"{SUPERUSER}\" \"\"\n")).unwrap();
        chown_to_server_user(&dir);
        let program = std::env::var("DEALCARDS_PGBOUNCER").unwrap_or("pgbouncer".into());
        let ini = dir.join("pgbouncer.ini").display().to_string();
        run_as_server_user(Path::new(&program), &["-d", "-q", &ini], &dir);
        let bouncer = Bouncer { port, dir };
        // -d returns once the daemon forked: wait until it accepts connections.
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "pgbouncer does not listen: {}",
                std::fs::read_to_string(bouncer.dir.join("pgbouncer.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        bouncer
    }

    /// A client connection to pool `pool`.
    pub fn connect(&self, pool: &str) -> Client {
        Client::connect(
            &format!(
                "host=127.0.0.1 port={} user={SUPERUSER} dbname={pool}",
                self.port
            ),
            NoTls,
        )
        .unwrap_or_else(|e| panic!("cannot connect to pool {pool} through pgbouncer: {e}"))
    }
}

impl Drop for Bouncer {
    fn drop(&mut self) {
        if let Ok(pid) = std::fs::read_to_string(self.dir.join("pgbouncer.pid")) {
            // SIGTERM: stop now (a safe shutdown, SIGINT, can wait on server connections).
            let _ = Command::new("kill").args(["-TERM", pid.trim()]).status();
        }
    }
}

/// The rows of `sql` run with the simple query protocol (what a client behind a pooler in
/// transaction or statement mode uses: a protocol-level prepared statement would have to
/// outlive its transaction on one server connection), each as its columns' text.
pub fn rows(client: &mut Client, sql: &str) -> Vec<Vec<Option<String>>> {
    client
        .simple_query(sql)
        .unwrap_or_else(|e| panic!("{sql}: {}", error_text(&e)))
        .into_iter()
        .filter_map(|m| match m {
            SimpleQueryMessage::Row(row) => Some(
                (0..row.len())
                    .map(|i| row.get(i).map(str::to_string))
                    .collect(),
            ),
            _ => None,
        })
        .collect()
}

/// The one value that `sql` returns (simple query protocol).
pub fn value(client: &mut Client, sql: &str) -> String {
    let rows = rows(client, sql);
    assert_eq!(rows.len(), 1, "{sql}: {rows:?}");
    rows[0][0].clone().unwrap_or_else(|| panic!("{sql}: NULL"))
}

/// A server error's SQLSTATE and message (postgres::Error's Display says only "db error").
pub fn error_text(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => format!("{}: {}", db.code().code(), db.message()),
        None => e.to_string(),
    }
}
