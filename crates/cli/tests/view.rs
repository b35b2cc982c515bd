//! The replay page in a real browser: `signorini run --record` writes a self-contained page that headless Chromium
//! loads without a script error, whose canvas renders, and whose frame follows the scrubber (`#frame=K`);
//! `signorini view` rebuilds the same page from the dump.
//!
//! Needs Chromium (`chromium`, or the binary `CHROMIUM` names) and three.js (`cargo xtask vendor`, which
//! `cargo xtask test` runs). Without them the test says so and passes, unless `SIGNORINI_REQUIRE_BROWSER=1` (set by
//! `.ci/run`), where their absence is a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

const SCENE: &str = r#"<mujoco><option timestep="0.002"/><worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body pos="0 0 0.6" euler="0.4 0.3 0"><freejoint/><geom type="box" size="0.1 0.15 0.1"/></body>
    <body pos="0.3 0 0.9"><freejoint/><geom type="capsule" size="0.05 0.15"/></body>
    <body pos="-0.3 0.1 1.2"><freejoint/><geom type="sphere" size="0.1"/></body>
  </worldbody></mujoco>"#;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_signorini"))
}

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|d| ["chromium", "chromium-browser", "google-chrome"].map(|n| d.join(n)))
        .find(|p| p.is_file())
}

fn three_js() -> PathBuf {
    std::env::var_os("SIGNORINI_THREE_JS").map(PathBuf::from).unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/vendor/three-0.159.0/three.min.js")
    })
}

/// Runs headless Chromium on `url` with `args`; returns its stdout and stderr.
fn browse(chrome: &Path, profile: &Path, url: &str, args: &[&str]) -> (String, String) {
    let out = Command::new(chrome)
        .args(["--headless", "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader"])
        .args(["--window-size=800,600", "--virtual-time-budget=4000", "--enable-logging=stderr", "--v=0"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .output()
        .expect("Chromium starts");
    assert!(out.status.success(), "chromium failed: {}", String::from_utf8_lossy(&out.stderr));
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The value of `data-NAME` on the page's `<body>` in a DOM dump.
fn body_data(dom: &str, name: &str) -> String {
    let body = &dom[dom.find("<body").expect("a body")..];
    let body = &body[..body.find('>').unwrap()];
    let key = format!("data-{name}=\"");
    let at = body.find(&key).unwrap_or_else(|| panic!("no data-{name} in {body}")) + key.len();
    body[at..at + body[at..].find('"').unwrap()].to_string()
}

#[test]
fn the_replay_page_renders_and_scrubs_in_a_real_browser() {
    let required = std::env::var_os("SIGNORINI_REQUIRE_BROWSER").is_some_and(|v| v == "1");
    let (chrome, three) = (chromium(), three_js());
    if chrome.is_none() || !three.is_file() {
        let what = format!(
            "Chromium found: {}, three.js at {}: {}",
            chrome.is_some(),
            three.display(),
            three.is_file()
        );
        assert!(!required, "SIGNORINI_REQUIRE_BROWSER=1 but {what}");
        eprintln!(
            "SKIPPED the browser test of the replay page ({what}); `apt-get install chromium`, `cargo xtask vendor`"
        );
        return;
    }
    let chrome = chrome.unwrap();
    let dir = std::env::temp_dir().join(format!("signorini-view-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (scene, page, dump, page2) =
        (dir.join("drop.xml"), dir.join("drop.html"), dir.join("drop.json"), dir.join("again.html"));
    std::fs::write(&scene, SCENE).unwrap();
    let out = bin()
        .arg("run")
        .arg(&scene)
        .args(["--steps", "400", "--every", "20", "--record"])
        .arg(&page)
        .arg("--dump")
        .arg(&dump)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains("http://") && !html.contains("https://") || !html.contains("src=\"http"),
        "self-contained"
    );
    assert!(!html.contains("<script src="), "no external script");
    let out = bin().arg("view").arg(&dump).arg("--out").arg(&page2).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::read_to_string(&page2).unwrap() == html, "view rebuilds the page of the run");

    let url = |frame: usize| format!("file://{}#frame={frame}&contacts=1", page.display());
    let profile = dir.join("profile");
    for (frame, step) in [(0, 0), (10, 200), (20, 400)] {
        let (dom, log) = browse(&chrome, &profile, &url(frame), &["--dump-dom"]);
        assert_eq!(body_data(&dom, "ready"), "1", "the page script ran to the end\n{log}");
        assert_eq!(body_data(&dom, "errors"), "", "no script error");
        assert_eq!(body_data(&dom, "frame"), frame.to_string());
        assert_eq!(body_data(&dom, "step"), step.to_string());
        assert!(!log.contains("Uncaught"), "a console error: {log}");
    }
    let mut shots = Vec::new();
    for frame in [0, 20] {
        let shot = dir.join(format!("frame{frame}.png"));
        browse(&chrome, &profile, &url(frame), &[&format!("--screenshot={}", shot.display())]);
        let bytes = std::fs::read(&shot).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        // A blank or one-colour canvas compresses to a few kilobytes; the scene and its grid do not.
        assert!(bytes.len() > 12_000, "frame {frame}: a {}-byte screenshot looks empty", bytes.len());
        shots.push(bytes);
    }
    assert_ne!(shots[0], shots[1], "scrubbing to another frame changes the picture");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn record_and_view_refuse_what_cannot_work_before_running() {
    let dir = std::env::temp_dir().join(format!("signorini-view-refuse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("drop.xml");
    std::fs::write(&scene, SCENE).unwrap();
    let missing_dir = dir.join("no/such/folder/page.html");
    let o = bin().arg("run").arg(&scene).arg("--record").arg(&missing_dir).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("does not exist"));
    let o = bin()
        .arg("run")
        .arg(&scene)
        .args(["--envs", "2", "--record"])
        .arg(dir.join("p.html"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--envs"));
    // A dump without a replay says how to record one.
    let dump = dir.join("plain.json");
    let o = bin().arg("run").arg(&scene).args(["--steps", "5", "--dump"]).arg(&dump).output().unwrap();
    assert!(o.status.success());
    let o = bin().arg("view").arg(&dump).arg("--out").arg(dir.join("v.html")).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--record"));
    let _ = std::fs::remove_dir_all(&dir);
}
