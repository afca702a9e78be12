#!/bin/sh
# Installs pricewatch as a systemd service: the service user, the binary,
# the unit, the config (first install only) and the credentials directory.
# Safe to run again for an upgrade: an existing config is never touched.
#
#   make build && sudo make install          (the usual way)
#   sudo systemd/install.sh                  (the same, after make build)
#   DESTDIR=/tmp/stage systemd/install.sh    (stage the files only: no user,
#                                             no ownership, no systemctl;
#                                             for packaging and CI)
#
# Settings, from the environment:
#   BINARY          the built binary            (bin/pricewatch)
#   CONFIG_EXAMPLE  copied on first install     (config.example.yaml)
#   BINDIR          where the binary goes       (/usr/local/bin)
#   UNITDIR         where the unit goes         (/etc/systemd/system)
#   SYSUSERSDIR     where the sysusers.d entry goes (/usr/lib/sysusers.d)
#   DESTDIR         staging root                (empty: the real system)
set -eu

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")

BINARY=${BINARY:-$top/bin/pricewatch}
CONFIG_EXAMPLE=${CONFIG_EXAMPLE:-$top/config.example.yaml}
BINDIR=${BINDIR:-/usr/local/bin}
UNITDIR=${UNITDIR:-/etc/systemd/system}
SYSUSERSDIR=${SYSUSERSDIR:-/usr/lib/sysusers.d}
DESTDIR=${DESTDIR:-}
# Fixed by the unit's ConfigurationDirectory=pricewatch and StateDirectory=.
CONFDIR=/etc/pricewatch
STATEDIR=/var/lib/pricewatch
SERVICE_USER=pricewatch

die() { echo "install.sh: $*" >&2; exit 1; }
say() { echo "install.sh: $*"; }

if [ ! -f "$BINARY" ] || [ ! -x "$BINARY" ]; then
	die "$BINARY is missing or not executable: run 'make build' first (as yourself, where Go is installed), then 'sudo make install'"
fi
[ -f "$CONFIG_EXAMPLE" ] ||
	die "$CONFIG_EXAMPLE is missing: it becomes $CONFDIR/pricewatch.yaml on the first install"
if [ -z "$DESTDIR" ] && [ "$(id -u)" -ne 0 ]; then
	die "creating a system user and writing to $BINDIR and /etc needs root: use 'sudo make install' (or set DESTDIR to only stage the files)"
fi

# The service user, from the sysusers.d entry so that systemd-sysusers
# recreates it at boot should /etc/passwd lose it.
install -D -m 0644 "$here/pricewatch.sysusers" "$DESTDIR$SYSUSERSDIR/pricewatch.conf"
if [ -z "$DESTDIR" ]; then
	if getent passwd "$SERVICE_USER" >/dev/null; then
		say "user $SERVICE_USER exists"
	elif command -v systemd-sysusers >/dev/null 2>&1; then
		systemd-sysusers "$SYSUSERSDIR/pricewatch.conf"
		say "created user $SERVICE_USER with systemd-sysusers"
	else
		useradd --system --user-group --no-create-home \
			--home-dir "$STATEDIR" \
			--shell "$(command -v nologin || echo /usr/sbin/nologin)" \
			--comment "pricewatch GPU cloud price tracker" \
			"$SERVICE_USER"
		say "created user $SERVICE_USER with useradd"
	fi
fi

install -D -m 0755 "$BINARY" "$DESTDIR$BINDIR/pricewatch"
say "installed $BINDIR/pricewatch"

# The config may hold inline secrets (slack.token, webhook_url): root
# writes it, the service group reads it, nobody else does.
install -d -m 0755 "$DESTDIR$CONFDIR"
if [ -e "$DESTDIR$CONFDIR/pricewatch.yaml" ]; then
	say "kept the existing $CONFDIR/pricewatch.yaml"
else
	install -m 0640 "$CONFIG_EXAMPLE" "$DESTDIR$CONFDIR/pricewatch.yaml"
	[ -n "$DESTDIR" ] || chgrp "$SERVICE_USER" "$CONFDIR/pricewatch.yaml"
	say "installed $CONFDIR/pricewatch.yaml from $(basename "$CONFIG_EXAMPLE"): edit it before starting"
fi

# Credential sources: root only. systemd reads them as root and hands the
# service private copies (LoadCredential= in the unit).
install -d -m 0700 "$DESTDIR$CONFDIR/credentials"
[ -n "$DESTDIR" ] || chown root:root "$CONFDIR/credentials"

# The unit names the binary by path; follow a non-default BINDIR.
install -d -m 0755 "$DESTDIR$UNITDIR"
sed "s|^ExecStart=/usr/local/bin/pricewatch |ExecStart=$BINDIR/pricewatch |" \
	"$here/pricewatch.service" >"$DESTDIR$UNITDIR/pricewatch.service.tmp"
chmod 0644 "$DESTDIR$UNITDIR/pricewatch.service.tmp"
mv "$DESTDIR$UNITDIR/pricewatch.service.tmp" "$DESTDIR$UNITDIR/pricewatch.service"
say "installed $UNITDIR/pricewatch.service"

if [ -n "$DESTDIR" ]; then
	say "staged under $DESTDIR (no user created, no ownership set, systemd not told)"
	exit 0
fi

# /run/systemd/system exists only when systemd is PID 1 (sd_booted(3)).
if [ -d /run/systemd/system ]; then
	systemctl daemon-reload
	say "systemd reloaded its units"
	if systemctl is-active --quiet pricewatch.service; then
		say "pricewatch is running the old binary: 'systemctl restart pricewatch' to switch"
	fi
else
	say "systemd is not running here: nothing reloaded"
fi

cat <<EOF

Next steps:
  1. Edit $CONFDIR/pricewatch.yaml (database.path: $STATEDIR/pricewatch.db).
  2. Put each secret you use in its own file under $CONFDIR/credentials/
     (slack-token, alibaba-access-key-id, alibaba-access-key-secret,
     tencent-secret-id, tencent-secret-key, lambda-api-key, runpod-api-key,
     http-token), e.g.
       sudo install -m 0600 /dev/stdin $CONFDIR/credentials/slack-token
     then type the token and press Ctrl-D. Missing files are fine: that
     provider or Slack is simply not configured.
  3. sudo systemctl enable --now pricewatch
  4. journalctl -u pricewatch -f
EOF
