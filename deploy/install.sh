#!/usr/bin/env bash
# Install Tabletop Companion on a Raspberry Pi from this checkout (see deploy/README.md).
# Safe to run again: a second run with nothing new changes nothing.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: sudo deploy/install.sh [OPTIONS]

Installs Tabletop Companion from this checkout: the system packages it needs, the
"companion" user, a virtual environment in /opt/companion with the package and its
[pi] extra, /etc/companion/config.toml (only if there is none), the boot settings in
config.txt (once), and companion.service (enabled). Run it again after `git pull`
to update; with nothing new it changes nothing.

Options:
  --root DIR     install under DIR instead of / (for tests and staging; needs
                 --no-system)
  --no-system    skip apt-get, user and group creation, and systemctl
  --no-venv      skip the virtual environment and pip (the tests use this)
  --no-firmware  leave config.txt and the boot-time kernel modules alone
  --python PATH  the Python 3.11+ that creates the virtual environment
                 (default: python3)
  -h, --help     show this text
EOF
}

say() { printf 'install: %s\n' "$*"; }
die() { printf 'install: error: %s\n' "$*" >&2; exit 1; }

SRC=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
ROOT=/
SYSTEM=1
VENV=1
FIRMWARE=1
PYTHON=python3

while (($#)); do
    case $1 in
        --root)
            (($# >= 2)) || { usage >&2; exit 2; }
            ROOT=$2
            shift 2
            ;;
        --root=*) ROOT=${1#--root=}; shift ;;
        --no-system) SYSTEM=0; shift ;;
        --no-venv) VENV=0; shift ;;
        --no-firmware) FIRMWARE=0; shift ;;
        --python)
            (($# >= 2)) || { usage >&2; exit 2; }
            PYTHON=$2
            shift 2
            ;;
        --python=*) PYTHON=${1#--python=}; shift ;;
        -h | --help) usage; exit 0 ;;
        *) printf 'install: unknown option: %s\n\n' "$1" >&2; usage >&2; exit 2 ;;
    esac
done

[[ -d $ROOT ]] || die "--root $ROOT: no such directory"
R=$(cd -- "$ROOT" && pwd)
[[ $R == / ]] && R=""
if [[ -n $R ]] && ((SYSTEM)); then
    die "--root installs files only: add --no-system"
fi
if ((SYSTEM)) && ((EUID != 0)); then
    die "run as root (sudo), or add --no-system"
fi

umask 022
WORK=$(mktemp -d)
trap 'rm -rf -- "$WORK"' EXIT

USER_NAME=companion
GROUPS_NEEDED=(gpio i2c spi dialout)
APT_PACKAGES=(python3 python3-venv python3-dev gcc i2c-tools)
APT_PI_PACKAGES=(python3-lgpio liblgpio-dev swig)
PREFIX=$R/opt/companion
ETC=$R/etc/companion
STATE=$R/var/lib/companion
UNIT=$R/etc/systemd/system/companion.service
MODULES=$R/etc/modules-load.d/companion.conf
LINK=$R/usr/local/bin/companion
BEGIN_MARK="# BEGIN tabletop-companion"
END_MARK="# END tabletop-companion"

unit_changed=0
venv_changed=0
firmware_changed=0

# put_file SRC DEST MODE: copy only if the content differs; fix the mode if needed.
# Returns 0 if DEST changed, 1 if it was already right.
put_file() {
    local src=$1 dest=$2 mode=$3
    if [[ -f $dest ]] && cmp -s -- "$src" "$dest"; then
        if [[ $(stat -c %a -- "$dest") != "${mode#0}" ]]; then
            chmod -- "$mode" "$dest" || die "cannot chmod $dest"
            say "mode $mode: $dest"
            return 0
        fi
        return 1
    fi
    # (errexit does not reach inside an `if put_file`, hence the explicit die)
    install -D -m "$mode" -- "$src" "$dest" || die "cannot write $dest"
    say "installed $dest"
    return 0
}

# ensure_dir DIR MODE [OWNER:GROUP]
ensure_dir() {
    local dir=$1 mode=$2 owner=${3:-}
    if [[ ! -d $dir ]]; then
        install -d -m "$mode" -- "$dir"
        say "created $dir"
    elif [[ $(stat -c %a -- "$dir") != "${mode#0}" ]]; then
        chmod -- "$mode" "$dir"
    fi
    if [[ -n $owner ]] && [[ $(stat -c %U:%G -- "$dir") != "$owner" ]]; then
        chown -- "$owner" "$dir"
    fi
}

# --- 1. system packages --------------------------------------------------------------
# python3-lgpio (with liblgpio-dev and swig to build it if need be) comes from the
# Raspberry Pi OS archive; elsewhere pip has to manage without it.
is_installed() {
    local status
    status=$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)
    [[ $status == "install ok installed" ]]
}

has_candidate() {
    local candidate
    candidate=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p')
    [[ -n $candidate && $candidate != "(none)" ]]
}

install_packages() {
    local missing=() pkg
    for pkg in "${APT_PACKAGES[@]}" "${APT_PI_PACKAGES[@]}"; do
        is_installed "$pkg" || missing+=("$pkg")
    done
    if ((${#missing[@]} == 0)); then
        return
    fi
    apt-get update
    missing=()
    for pkg in "${APT_PACKAGES[@]}"; do
        is_installed "$pkg" || missing+=("$pkg")
    done
    for pkg in "${APT_PI_PACKAGES[@]}"; do
        if is_installed "$pkg"; then
            continue
        elif has_candidate "$pkg"; then
            missing+=("$pkg")
        else
            say "warning: no package $pkg here (not Raspberry Pi OS?); pip will try without it"
        fi
    done
    if ((${#missing[@]})); then
        say "apt-get install ${missing[*]}"
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
    fi
}

# --- 2. user and groups ------------------------------------------------------------------
create_user() {
    local group member_of
    for group in "${GROUPS_NEEDED[@]}"; do
        if ! getent group "$group" >/dev/null; then
            groupadd --system "$group"
            say "created group $group"
        fi
    done
    if ! getent passwd "$USER_NAME" >/dev/null; then
        useradd --system --user-group --home-dir /var/lib/companion --no-create-home \
            --shell /usr/sbin/nologin --comment "Tabletop Companion" \
            --groups "$(IFS=,; printf '%s' "${GROUPS_NEEDED[*]}")" "$USER_NAME"
        say "created user $USER_NAME"
        return
    fi
    member_of=" $(id -nG "$USER_NAME") "
    for group in "${GROUPS_NEEDED[@]}"; do
        if [[ $member_of != *" $group "* ]]; then
            usermod -a -G "$group" "$USER_NAME"
            say "added $USER_NAME to $group"
        fi
    done
}

# --- 3. virtual environment -----------------------------------------------------------
# The stamp names what is installed: package version, Python version and a hash of the
# sources. pip runs only when it differs, so a second run leaves the venv untouched.
source_stamp() {
    local version python sources
    version=$(sed -n '/^version = /{s/^version = "\(.*\)"$/\1/p;q}' "$SRC/pyproject.toml")
    python=$("$PREFIX/bin/python" -c 'import sys; print(sys.version.split()[0])')
    sources=$(cd -- "$SRC" &&
        find pyproject.toml companion -type f ! -path '*/__pycache__/*' ! -name '*.pyc' \
            -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum)
    printf 'tabletop-companion %s [pi]\npython %s\nsources %s\n' \
        "$version" "$python" "${sources%% *}"
}

install_venv() {
    local stamp_file=$PREFIX/.install-stamp want
    if [[ ! -x $PREFIX/bin/python ]]; then
        "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' ||
            die "$PYTHON is older than Python 3.11"
        say "creating the virtual environment in $PREFIX"
        # System site packages: Raspberry Pi OS's python3-lgpio then satisfies the
        # [pi] extra without compiling it.
        "$PYTHON" -m venv --clear --system-site-packages "$PREFIX"
    fi
    want=$(source_stamp)
    if [[ -f $stamp_file ]] && [[ $(<"$stamp_file") == "$want" ]]; then
        say "$PREFIX is up to date"
    else
        # pip builds in the source tree: build from a copy, so that the checkout gets
        # no root-owned build/ and *.egg-info directories.
        mkdir -p -- "$WORK/src"
        tar -C "$SRC" --exclude=./.git --exclude=./.venv --exclude=./build \
            --exclude='*.egg-info' --exclude=__pycache__ -cf - . | tar -C "$WORK/src" -xf -
        say "pip install ${SRC}[pi]"
        "$PREFIX/bin/python" -m pip install --disable-pip-version-check --no-cache-dir \
            --root-user-action=ignore --upgrade "$WORK/src[pi]"
        printf '%s\n' "$want" >"$stamp_file"
        venv_changed=1
    fi
    if [[ ! -e $LINK && ! -L $LINK ]]; then
        mkdir -p -- "$(dirname -- "$LINK")"
        ln -s /opt/companion/bin/companion "$LINK"
        say "linked $LINK"
    fi
}

# --- 4. configuration and state ----------------------------------------------------
install_config() {
    ensure_dir "$ETC" 0755
    put_file "$SRC/config/config.example.toml" "$ETC/config.example.toml" 0644 || true
    if [[ -e $ETC/config.toml ]]; then
        say "keeping $ETC/config.toml"
    else
        install -m 0644 -- "$SRC/config/config.example.toml" "$ETC/config.toml"
        say "installed the default $ETC/config.toml"
    fi
    if ((SYSTEM)); then
        ensure_dir "$STATE" 0750 "$USER_NAME:$USER_NAME"
    else
        ensure_dir "$STATE" 0750
    fi
}

# --- 5. boot configuration -----------------------------------------------------------
boot_config() {
    local candidate
    for candidate in "$R/boot/firmware/config.txt" "$R/boot/config.txt"; do
        if [[ -f $candidate ]]; then
            printf '%s\n' "$candidate"
            return
        fi
    done
}

install_firmware() {
    local config block=$WORK/block new=$WORK/config.txt begins ends
    config=$(boot_config)
    if [[ -z $config ]]; then
        say "no /boot/firmware/config.txt: skipping the boot settings (see firmware/README.md)"
    else
        {
            printf '%s\n' "$BEGIN_MARK"
            cat -- "$SRC/firmware/config.txt"
            printf '%s\n' "$END_MARK"
        } >"$block"
        begins=$(grep -c -x -F -- "$BEGIN_MARK" "$config" || true)
        ends=$(grep -c -x -F -- "$END_MARK" "$config" || true)
        if ((begins != ends || begins > 1)); then
            die "$config: damaged tabletop-companion block, fix it by hand (firmware/README.md)"
        fi
        if ((begins == 1)); then
            # Replace the block where it is.
            awk -v b="$BEGIN_MARK" -v e="$END_MARK" -v f="$block" '
                $0 == b { while ((getline line < f) > 0) print line; skip = 1; next }
                skip && $0 == e { skip = 0; next }
                !skip { print }' "$config" >"$new"
        else
            cat -- "$config" >"$new"
            if [[ -s $new && $(tail -c 1 -- "$new") != "" ]]; then
                printf '\n' >>"$new"
            fi
            cat -- "$block" >>"$new"
        fi
        if cmp -s -- "$new" "$config"; then
            say "$config already has the boot settings"
        else
            # Rewrite in place: keeps the file's owner and mode (it is on FAT anyway).
            cat -- "$new" >"$config"
            sync
            say "updated the boot settings in $config"
            firmware_changed=1
        fi
    fi
    if put_file "$SRC/deploy/modules-load.conf" "$MODULES" 0644; then
        firmware_changed=1
    fi
}

# --- 6. service --------------------------------------------------------------------------
install_unit() {
    if put_file "$SRC/systemd/companion.service" "$UNIT" 0644; then
        unit_changed=1
    fi
}

start_service() {
    if ((unit_changed)); then
        systemctl daemon-reload
    fi
    if ! systemctl is-enabled --quiet companion.service; then
        systemctl enable companion.service
    fi
    if ((firmware_changed)); then
        say "boot settings changed: reboot to apply them (sudo reboot); companion starts then"
    elif ((unit_changed || venv_changed)); then
        systemctl restart companion.service ||
            say "companion.service did not start: journalctl -u companion"
    elif ! systemctl is-active --quiet companion.service; then
        systemctl start companion.service ||
            say "companion.service did not start: journalctl -u companion"
    fi
}

if ((SYSTEM)); then
    install_packages
    create_user
fi
if ((VENV)); then
    install_venv
fi
install_config
if ((FIRMWARE)); then
    install_firmware
fi
install_unit
if ((SYSTEM)); then
    start_service
fi
say "done"
