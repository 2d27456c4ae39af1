//! Protocol peers no one here wrote, started by the tests: Debian's OpenSSH server
//! (`sshd` on a loopback port with its own host key and a test-made authorized key)
//! and pyas2lib (tests/as2_peer.py in the venv examples/server/test.sh makes).

use super::*;
use std::os::unix::process::CommandExt;

/// The sshd binary (Debian's `openssh-server`; examples/server/test.sh installs it).
pub fn sshd_binary() -> PathBuf {
    let p = PathBuf::from(
        std::env::var("X12KIT_TEST_SSHD").unwrap_or_else(|_| "/usr/sbin/sshd".into()),
    );
    assert!(
        p.exists(),
        "{} not found: install Debian's openssh-server (examples/server/test.sh does: apt-get install openssh-server)",
        p.display()
    );
    p
}

/// A free TCP port on 127.0.0.1.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Runs a command, panicking with its output when it fails.
pub fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Makes a key pair with ssh-keygen (`ed25519`, `rsa`); its private key file.
pub fn keygen(dir: &Path, name: &str, kind: &str, format: Option<&str>) -> PathBuf {
    let key = dir.join(name);
    let mut cmd = Command::new("ssh-keygen");
    cmd.args(["-q", "-t", kind, "-N", "", "-C", name, "-f"])
        .arg(&key);
    if kind == "rsa" {
        cmd.args(["-b", "3072"]);
    }
    if let Some(f) = format {
        cmd.args(["-m", f]);
    }
    run(&mut cmd);
    key
}

/// The SHA-256 fingerprint of a public key file, as `ssh-keygen -lf` prints it.
pub fn fingerprint(public_key: &Path) -> String {
    let out = run(Command::new("ssh-keygen").arg("-lf").arg(public_key));
    out.split_whitespace()
        .nth(1)
        .expect("ssh-keygen -lf prints: bits SHA256:... comment (type)")
        .to_string()
}

/// An OpenSSH server for one test: its folder (keys, config, the partner's folders
/// `in/` (we write), `out/` (we read), `done/`), its port and process.
pub struct Sshd {
    pub dir: tempfile::TempDir,
    pub port: u16,
    pub host_key: PathBuf,
    /// The client's keys: ed25519 (OpenSSH format) and RSA (PEM).
    pub ed25519: PathBuf,
    pub rsa: PathBuf,
    child: Option<Child>,
}

impl Sshd {
    /// Makes the keys and folders and starts sshd. `subsystem` replaces the sftp-server
    /// command line (a throttled or restricted one).
    pub fn start(subsystem: Option<&str>) -> Sshd {
        sshd_binary();
        let dir = tempfile::tempdir().unwrap();
        let host_key = keygen(dir.path(), "host_key", "ed25519", None);
        let ed25519 = keygen(dir.path(), "client_ed25519", "ed25519", None);
        let rsa = keygen(dir.path(), "client_rsa", "rsa", Some("PEM"));
        let mut authorized = String::new();
        for k in [&ed25519, &rsa] {
            authorized.push_str(&std::fs::read_to_string(k.with_extension("pub")).unwrap());
        }
        std::fs::write(dir.path().join("authorized_keys"), authorized).unwrap();
        for d in ["in", "out", "done"] {
            std::fs::create_dir(dir.path().join(d)).unwrap();
        }
        // sshd checks for its privilege separation folder.
        let _ = std::fs::create_dir_all("/run/sshd");
        let mut s = Sshd {
            dir,
            port: free_port(),
            host_key,
            ed25519,
            rsa,
            child: None,
        };
        s.write_config(subsystem);
        s.run();
        s
    }

    fn write_config(&self, subsystem: Option<&str>) {
        let d = self.dir.path();
        let config = format!(
            "Port {port}\nListenAddress 127.0.0.1\nHostKey {host}\nPidFile {d}/sshd.pid\n\
             AuthorizedKeysFile {d}/authorized_keys\nStrictModes no\nUsePAM no\n\
             PermitRootLogin prohibit-password\nPasswordAuthentication no\n\
             KbdInteractiveAuthentication no\nPubkeyAuthentication yes\nLogLevel ERROR\n\
             Subsystem sftp {sub}\n",
            port = self.port,
            host = self.host_key.display(),
            d = d.display(),
            sub = subsystem.unwrap_or("/usr/lib/openssh/sftp-server"),
        );
        std::fs::write(d.join("sshd_config"), config).unwrap();
    }

    fn run(&mut self) {
        let child = Command::new(sshd_binary())
            .args(["-D", "-e", "-f"])
            .arg(self.dir.path().join("sshd_config"))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            // Its own process group: a kill of the group ends the sessions' processes too.
            .process_group(0)
            .spawn()
            .expect("start sshd");
        self.child = Some(child);
        wait_for(10, "sshd to listen", || {
            std::net::TcpStream::connect(("127.0.0.1", self.port)).ok()
        });
    }

    /// SIGKILL to sshd and every process under it (the sessions, their sftp-server).
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let mut all = descendants(c.id());
            all.push(c.id());
            for pid in all {
                let _ = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status();
            }
            let _ = c.wait();
        }
    }

    /// Starts it again on the same port, keys and folders (`subsystem` as in [`start`]).
    pub fn restart(&mut self, subsystem: Option<&str>) {
        self.kill();
        self.write_config(subsystem);
        self.run();
    }

    /// The partner's folder of `name` (`in`, `out`, `done`).
    pub fn folder(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// `ssh-keygen -lf` of the host key.
    pub fn host_fingerprint(&self) -> String {
        fingerprint(&self.host_key.with_extension("pub"))
    }

    /// The partner settings (TOML) of an `sftp` transport to this server.
    pub fn partner_toml(&self, key: &Path, extra: &str) -> String {
        format!(
            "[accounts.partners.transport]\nkind = \"sftp\"\nhost = \"127.0.0.1\"\nport = {}\nuser = \"root\"\n\
             private_key_file = {:?}\nhost_key_sha256 = {:?}\noutbound_dir = {:?}\ninbound_dir = {:?}\n{extra}",
            self.port,
            key.to_string_lossy(),
            self.host_fingerprint(),
            self.folder("in").to_string_lossy(),
            self.folder("out").to_string_lossy(),
        )
    }
}

/// Every process under `pid` (children first found through /proc's parent ids).
pub fn descendants(pid: u32) -> Vec<u32> {
    let parents: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| {
            let me: u32 = e.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{me}/stat")).ok()?;
            // pid (comm) state ppid ...: the command may hold spaces, so after the last ')'.
            let ppid = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()?;
            Some((me, ppid))
        })
        .collect();
    let mut out = Vec::new();
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        for (child, _) in parents.iter().filter(|(_, pp)| *pp == p) {
            out.push(*child);
            todo.push(*child);
        }
    }
    out
}

impl Drop for Sshd {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The names of the regular files of a folder, sorted.
pub fn files(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Rows of a query on a server's store (SQLite file or PostgreSQL), as text columns.
pub fn store_rows(database: &str, sql: &str) -> Vec<Vec<String>> {
    if database.starts_with("postgres") {
        let mut client = postgres::Client::connect(database, postgres::NoTls).unwrap();
        client
            .simple_query(sql)
            .unwrap()
            .into_iter()
            .filter_map(|m| match m {
                postgres::SimpleQueryMessage::Row(r) => Some(
                    (0..r.len())
                        .map(|i| r.get(i).unwrap_or("").to_string())
                        .collect(),
                ),
                _ => None,
            })
            .collect()
    } else {
        let c = rusqlite::Connection::open(database).unwrap();
        let mut st = c.prepare(sql).unwrap();
        let n = st.column_count();
        st.query_map([], |r| {
            Ok((0..n)
                .map(|i| match r.get_ref(i).unwrap() {
                    rusqlite::types::ValueRef::Null => String::new(),
                    rusqlite::types::ValueRef::Integer(i) => i.to_string(),
                    rusqlite::types::ValueRef::Real(f) => f.to_string(),
                    rusqlite::types::ValueRef::Text(t) | rusqlite::types::ValueRef::Blob(t) => {
                        String::from_utf8_lossy(t).into_owned()
                    }
                })
                .collect())
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
    }
}

/// A signed-in admin of alpha: the cookie and CSRF token, for the settings routes.
pub struct Admin {
    cookie: String,
    csrf: String,
}

impl Admin {
    /// Signs in as alpha's demo admin.
    pub fn sign_in(s: &Server) -> Admin {
        let r = s
            .client
            .post(format!("{}/api/auth/login", s.base))
            .header("content-type", "application/json")
            .body(
                json!({"email": "admin@alpha.example", "password": "alpha-demo-password"})
                    .to_string(),
            )
            .send()
            .unwrap();
        assert_eq!(r.status(), 200);
        let cookie = r.headers()["set-cookie"]
            .to_str()
            .unwrap()
            .split(';')
            .next()
            .unwrap()
            .to_string();
        let v: Value = r.json().unwrap();
        Admin {
            cookie,
            csrf: v["data"]["csrfToken"].as_str().unwrap().to_string(),
        }
    }

    /// A settings call; its status and JSON body.
    pub fn call(
        &self,
        s: &Server,
        method: reqwest::Method,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut r = s
            .client
            .request(method, format!("{}{path}", s.base))
            .header("cookie", &self.cookie)
            .header("x-csrf-token", &self.csrf);
        if let Some(b) = body {
            r = r
                .header("content-type", "application/json")
                .body(b.to_string());
        }
        let r = r.send().unwrap();
        let status = r.status().as_u16();
        (status, r.json().unwrap_or(Value::Null))
    }
}
