#!/usr/bin/env bash
# Undo deploy/install.sh (see deploy/README.md). The game history in /var/lib/companion
# and a config.toml you changed stay unless you pass --purge.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: sudo deploy/uninstall.sh [OPTIONS]

Stops and disables companion.service and removes what deploy/install.sh put on the
system: the unit, /opt/companion, the /usr/local/bin/companion link, the boot
settings block in config.txt and /etc/modules-load.d/companion.conf. The config
the installer wrote, /etc/companion/config.toml, goes too, unless you changed it, and
so do the remembered install choices (/etc/companion/install.conf).

Kept unless --purge: /var/lib/companion (rosters, matches, history), a changed
config.toml, drop-ins in /etc/systemd/system/companion.service.d, the companion user.
The groups (gpio, i2c, spi, dialout) and the apt packages always stay.

Options:
  --purge        also remove the state directory, the config, drop-ins and the user
  --root DIR     uninstall under DIR instead of / (needs --no-system)
  --no-system    skip systemctl and userdel
  -h, --help     show this text
EOF
}

say() { printf 'uninstall: %s\n' "$*"; }
die() { printf 'uninstall: error: %s\n' "$*" >&2; exit 1; }

SRC=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=/
SYSTEM=1
PURGE=0

while (($#)); do
    case $1 in
        --root)
            (($# >= 2)) || { usage >&2; exit 2; }
            ROOT=$2
            shift 2
            ;;
        --root=*) ROOT=${1#--root=}; shift ;;
        --no-system) SYSTEM=0; shift ;;
        --purge) PURGE=1; shift ;;
        -h | --help) usage; exit 0 ;;
        *) printf 'uninstall: unknown option: %s\n\n' "$1" >&2; usage >&2; exit 2 ;;
    esac
done

[[ -d $ROOT ]] || die "--root $ROOT: no such directory"
R=$(cd -- "$ROOT" && pwd)
[[ $R == / ]] && R=""
if [[ -n $R ]] && ((SYSTEM)); then
    die "--root removes files only: add --no-system"
fi
if ((SYSTEM)) && ((EUID != 0)); then
    die "run as root (sudo), or add --no-system"
fi

WORK=$(mktemp -d)
trap 'rm -rf -- "$WORK"' EXIT

USER_NAME=companion
PREFIX=$R/opt/companion
ETC=$R/etc/companion
STATE=$R/var/lib/companion
UNIT=$R/etc/systemd/system/companion.service
DROPINS=$R/etc/systemd/system/companion.service.d
MODULES=$R/etc/modules-load.d/companion.conf
LINK=$R/usr/local/bin/companion
BEGIN_MARK="# BEGIN tabletop-companion"
END_MARK="# END tabletop-companion"

remove() {
    local path
    for path in "$@"; do
        if [[ -e $path || -L $path ]]; then
            rm -rf -- "$path"
            say "removed $path"
        fi
    done
}

# --- service --------------------------------------------------------------------------
if ((SYSTEM)) && systemctl cat companion.service >/dev/null 2>&1; then
    systemctl disable --now companion.service || true
fi
remove "$UNIT"
# The drop-in install.sh wrote for [backup] dir goes with the unit; yours stay.
remove "$DROPINS/backup-dir.conf"
[[ ! -d $DROPINS ]] || rmdir --ignore-fail-on-non-empty -- "$DROPINS"
if ((PURGE)); then
    remove "$DROPINS"
elif [[ -d $DROPINS ]]; then
    say "keeping $DROPINS (--purge removes it)"
fi
if ((SYSTEM)); then
    systemctl daemon-reload
    systemctl reset-failed companion.service 2>/dev/null || true
fi

# --- program --------------------------------------------------------------------------
if [[ -L $LINK && $(readlink -- "$LINK") == /opt/companion/bin/companion ]]; then
    remove "$LINK"
fi
remove "$PREFIX"

# --- configuration ----------------------------------------------------------------------
# The config the installer wrote (its hash is in install.conf), or the bare example
# an older installer copied, was never changed: it goes. A changed one stays.
installed_config_unchanged() {
    local recorded
    recorded=$(sed -n 's/^config_toml=//p' "$ETC/install.conf" 2>/dev/null || true)
    cmp -s -- "$SRC/config/config.example.toml" "$ETC/config.toml" ||
        [[ -n $recorded && $(sha256sum -- "$ETC/config.toml" | cut -d' ' -f1) == "$recorded" ]]
}
if [[ -f $ETC/config.toml ]]; then
    if ((PURGE)) || installed_config_unchanged; then
        remove "$ETC/config.toml"
    else
        say "keeping your $ETC/config.toml (--purge removes it)"
    fi
fi
remove "$ETC/config.example.toml" "$ETC/install.conf"
if ((PURGE)); then
    remove "$ETC"
elif [[ -d $ETC ]]; then
    rmdir --ignore-fail-on-non-empty -- "$ETC"
    [[ -d $ETC ]] || say "removed $ETC"
fi

# --- state ----------------------------------------------------------------------------------
if ((PURGE)); then
    remove "$STATE"
elif [[ -d $STATE ]]; then
    say "keeping $STATE, the game history (--purge removes it)"
fi

# --- boot configuration -------------------------------------------------------------------
for config in "$R/boot/firmware/config.txt" "$R/boot/config.txt"; do
    [[ -f $config ]] || continue
    grep -q -x -F -- "$BEGIN_MARK" "$config" || continue
    grep -q -x -F -- "$END_MARK" "$config" ||
        die "$config: '$BEGIN_MARK' without '$END_MARK': remove the block by hand"
    awk -v b="$BEGIN_MARK" -v e="$END_MARK" '
        $0 == b { skip = 1; next }
        skip && $0 == e { skip = 0; next }
        !skip { print }' "$config" >"$WORK/config.txt"
    cat -- "$WORK/config.txt" >"$config"
    sync
    say "removed the boot settings from $config (reboot to apply)"
done
remove "$MODULES"

# --- user -------------------------------------------------------------------------------------
if ((PURGE)) && ((SYSTEM)) && getent passwd "$USER_NAME" >/dev/null; then
    userdel "$USER_NAME"
    say "removed user $USER_NAME"
fi
say "done"
