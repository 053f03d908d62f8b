//! dealcards installed outside the server's own folders, as CloudNativePG mounts an extension's
//! image (docs/operations.md): the control file and the SQL scripts in `<folder>/share/extension`,
//! the library in `<folder>/lib`, found through `extension_control_path` (PostgreSQL 18 and later)
//! and `dynamic_library_path`. On the newest major the folder is the unpacked layer of the OCI
//! image scripts/image.py writes (what `make image` runs), checked for its tag, labels, digests
//! and files. On a copy of the installation with no dealcards file in it, the
//! extension is created at its first release, updated to this one, loaded with `LOAD`, and passes
//! the pg_regress suite. On the oldest major, which has no `extension_control_path`, the library
//! alone lives outside (`dynamic_library_path`, what PostgreSQL 14 to 17 offer).
//!
//! Run by the operations suite on the newest major and on the oldest (the two it installs): the
//! path settings are PostgreSQL's and the same on the majors between.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::servers::{bin_dir, major_of, run, scratch, value, Cluster, SUPERUSER};

/// What `pg_config` of the installation at `bin` says `--name` is.
fn pg_config(bin: &Path, name: &str) -> PathBuf {
    let output = run({
        let mut c = Command::new(bin.join("pg_config"));
        c.arg(format!("--{name}"));
        c
    });
    PathBuf::from(String::from_utf8(output.stdout).unwrap().trim())
}

/// Every file under `dir` whose name starts with `dealcards`.
fn dealcards_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("dealcards"))
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// A copy of the installation at `bin` in `dir/pg` without dealcards' files, which go to
/// `dir/image` as an extension image lays them out (the control file and scripts stay in the
/// copy when `control_outside` is false). Returns the copy's bin folder and the image folder.
fn installation_without_dealcards(
    bin: &Path,
    dir: &Path,
    control_outside: bool,
) -> (PathBuf, PathBuf) {
    let root = bin.parent().unwrap();
    let copy = dir.join("pg");
    let status = Command::new("cp")
        .arg("-a")
        .arg(root)
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success(), "cp -a {}", root.display());
    let copy_bin = copy.join("bin");
    let image = dir.join("image");
    let extension = pg_config(&copy_bin, "sharedir").join("extension");
    let lib = pg_config(&copy_bin, "pkglibdir");
    assert!(
        extension.starts_with(&copy) && lib.starts_with(&copy),
        "the copy's pg_config names folders outside it: {}, {}",
        extension.display(),
        lib.display()
    );
    let library = lib.join(format!("dealcards{}", std::env::consts::DLL_SUFFIX));
    if control_outside {
        // The image `make image` writes, of the copy's files, unpacked as CloudNativePG mounts it.
        let layout = dir.join("oci");
        let expected = image_layout(&extension, &library, major_of(bin), &layout);
        for file in dealcards_files(&copy) {
            std::fs::remove_file(file).unwrap();
        }
        assert_eq!(
            dealcards_files(&copy),
            Vec::<PathBuf>::new(),
            "left in the copy"
        );
        unpack(&layout, &image);
        let unpacked: Vec<PathBuf> = dealcards_files(&image)
            .iter()
            .map(|f| f.strip_prefix(&image).unwrap().to_path_buf())
            .collect();
        assert_eq!(unpacked, expected, "the image's files");
    } else {
        std::fs::create_dir_all(image.join("lib")).unwrap();
        std::fs::rename(
            &library,
            image.join("lib").join(library.file_name().unwrap()),
        )
        .unwrap();
        assert!(
            dealcards_files(&lib).is_empty(),
            "a dealcards library is left in {}",
            lib.display()
        );
    }
    (copy_bin, image)
}

/// Writes the image of the extension's files in `extension` and `library` for `major` into
/// the OCI layout `layout` with scripts/image.py (what `make image` runs), checks the layout
/// (its tag, labels and digests) and returns the files the image must hold, under `image/`.
fn image_layout(extension: &Path, library: &Path, major: u32, layout: &Path) -> Vec<PathBuf> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/image.py");
    let output = run({
        let mut c = Command::new("python3");
        c.arg(script)
            .arg("--extension-dir")
            .arg(extension)
            .arg("--library")
            .arg(library)
            .args(["--pg-major", &major.to_string(), "--distro", "bookworm"])
            .arg("--out")
            .arg(layout);
        c
    });
    let tag = format!("{}-{major}-bookworm", env!("CARGO_PKG_VERSION"));
    let printed = String::from_utf8(output.stdout).unwrap();
    assert!(printed.starts_with(&format!("{tag} sha256:")), "{printed}");
    // Each blob of the layout is named by its digest.
    let blob = |digest: &serde_json::Value| {
        let path = blob_path(layout, digest);
        assert_eq!(
            sha256(&path),
            digest.as_str().unwrap(),
            "{}",
            path.display()
        );
        path
    };
    let index = json(layout.join("index.json"));
    let entry = &index["manifests"][0];
    assert_eq!(
        entry["annotations"]["org.opencontainers.image.ref.name"],
        tag
    );
    let manifest = json(blob(&entry["digest"]));
    let labels = &manifest["annotations"];
    assert_eq!(
        labels["io.cloudnativepg.image.base.pgmajor"],
        major.to_string()
    );
    assert_eq!(labels["org.opencontainers.image.base.name"], "scratch");
    let config = json(blob(&manifest["config"]["digest"]));
    assert_eq!(&config["config"]["Labels"], labels);
    assert_eq!(
        manifest["layers"].as_array().unwrap().len(),
        1,
        "{manifest}"
    );
    blob(&manifest["layers"][0]["digest"]);
    let mut expected: Vec<PathBuf> = dealcards_files(extension)
        .iter()
        .filter(|f| f.parent() == Some(extension))
        .map(|f| Path::new("share/extension").join(f.file_name().unwrap()))
        .chain([PathBuf::from("lib/dealcards.so")])
        .collect();
    expected.sort();
    expected
}

/// A JSON file of an image layout.
fn json(path: PathBuf) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The file of the blob whose digest (`sha256:...`) is `digest`, in the layout `layout`.
fn blob_path(layout: &Path, digest: &serde_json::Value) -> PathBuf {
    let digest = digest.as_str().unwrap();
    layout
        .join("blobs/sha256")
        .join(digest.strip_prefix("sha256:").unwrap())
}

/// The SHA-256 of a file, as an OCI digest.
fn sha256(path: &Path) -> String {
    let output = run({
        let mut c = Command::new("sha256sum");
        c.arg(path);
        c
    });
    let text = String::from_utf8(output.stdout).unwrap();
    format!("sha256:{}", text.split_whitespace().next().unwrap())
}

/// Unpacks the one layer of the image at `layout` into `into`, and checks that the layer's
/// uncompressed digest is the config's diff id.
fn unpack(layout: &Path, into: &Path) {
    let blob = |digest: &serde_json::Value| blob_path(layout, digest);
    let index = json(layout.join("index.json"));
    let manifest = json(blob(&index["manifests"][0]["digest"]));
    let config = json(blob(&manifest["config"]["digest"]));
    let layer = blob(&manifest["layers"][0]["digest"]);
    let tar = layout.join("layer.tar");
    let output = run({
        let mut c = Command::new("gzip");
        c.arg("-dc").arg(&layer);
        c
    });
    std::fs::write(&tar, output.stdout).unwrap();
    assert_eq!(
        sha256(&tar),
        config["rootfs"]["diff_ids"][0].as_str().unwrap()
    );
    std::fs::create_dir_all(into).unwrap();
    run({
        let mut c = Command::new("tar");
        c.arg("-xf").arg(&tar).arg("-C").arg(into);
        c
    });
}

/// Creates the extension at its first release in a new database, updates it to this release,
/// loads the library by name, and checks that every function names the library without a
/// folder, so that the server finds it through dynamic_library_path.
fn create_update_and_load(cluster: &Cluster) {
    let mut admin = cluster.connect("postgres");
    admin.batch_execute("CREATE DATABASE outside").unwrap();
    let mut client = cluster.connect("outside");
    client
        .batch_execute(
            "CREATE EXTENSION dealcards VERSION '0.1.0';
             ALTER EXTENSION dealcards UPDATE;
             LOAD 'dealcards';",
        )
        .unwrap();
    assert_eq!(
        value(
            &mut client,
            "SELECT extversion FROM pg_extension WHERE extname = 'dealcards'"
        ),
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(
        value(
            &mut client,
            "SELECT string_agg(DISTINCT probin, ', ') FROM pg_proc WHERE probin LIKE '%dealcards%'"
        ),
        "dealcards",
        "the functions' library, as the control file's module_pathname names it"
    );
    assert_eq!(
        value(&mut client, "SELECT cardinality(shuffle_ints(1, 54))"),
        "54"
    );
}

/// The pg_regress suite of tests/pg_regress against `cluster`, with the copy's pg_regress.
fn pg_regress(cluster: &Cluster, copy_bin: &Path, out: &Path) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pg_regress");
    let mut tests: Vec<String> = std::fs::read_dir(root.join("sql"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".sql").map(str::to_string))
        .collect();
    tests.sort();
    assert!(tests.len() > 10, "tests/pg_regress/sql: {tests:?}");
    let pg_regress = pg_config(copy_bin, "pkglibdir").join("pgxs/src/test/regress/pg_regress");
    let mut command = Command::new(pg_regress);
    command
        .arg(format!("--inputdir={}", root.display()))
        .arg(format!("--outputdir={}", out.display()))
        .arg(format!("--bindir={}", copy_bin.display()))
        .args(["--host=127.0.0.1", &format!("--port={}", cluster.port)])
        .arg(format!("--user={SUPERUSER}"))
        .args(["--dbname=dealcards_regress", "--load-extension=dealcards"])
        .args(&tests);
    let output = command.output().unwrap();
    let diffs = std::fs::read_to_string(out.join("regression.diffs")).unwrap_or_default();
    assert!(
        output.status.success(),
        "pg_regress: {}\n{}\n{diffs}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The server at `bin`, with dealcards only in an image folder: the whole extension on majors
/// with extension_control_path, the library alone before.
fn runs_from_an_image_folder(bin: &Path, name: &str) {
    let major = major_of(bin);
    let control_outside = major >= 18;
    let dir = scratch(name);
    let (copy_bin, image) = installation_without_dealcards(bin, &dir, control_outside);
    let mut cluster = Cluster::init(&copy_bin, &format!("{name}-server"), &[]);
    // The pg_regress suite prepares transactions, as on the clusters of scripts/cluster.sh.
    let mut settings = format!(
        "\nmax_prepared_transactions = 10\ndynamic_library_path = '{}:$libdir'\n",
        image.join("lib").display()
    );
    if control_outside {
        settings.push_str(&format!(
            "extension_control_path = '$system:{}'\n",
            image.join("share").display()
        ));
    }
    let conf = cluster.data.join("postgresql.conf");
    let mut text = std::fs::read_to_string(&conf).unwrap();
    text.push_str(&settings);
    std::fs::write(&conf, text).unwrap();
    cluster.start();
    create_update_and_load(&cluster);
    let out = dir.join("regress");
    std::fs::create_dir_all(&out).unwrap();
    pg_regress(&cluster, &copy_bin, &out);
}

#[test]
fn the_newest_major_runs_dealcards_from_an_image_folder() {
    let bin = bin_dir("DEALCARDS_OPS_PG_BIN");
    assert!(
        major_of(&bin) >= 18,
        "the operations suite's newest major is {}: extension_control_path needs 18",
        major_of(&bin)
    );
    runs_from_an_image_folder(&bin, "image-newest");
}

#[test]
fn the_oldest_major_finds_the_library_through_dynamic_library_path() {
    // scripts/test_ops.sh sets the oldest major only when it has two, and otherwise leaves this
    // test out by name and says so in make test's summary: run alone, it fails rather than pass.
    let from = bin_dir("DEALCARDS_UPGRADE_FROM_BIN");
    runs_from_an_image_folder(&from, "image-oldest");
}
