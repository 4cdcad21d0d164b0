#!/usr/bin/env bash
# Install Tabletop Companion on a Raspberry Pi from this checkout (see deploy/README.md).
# Safe to run again: a second run with nothing new changes nothing, and an update keeps
# the owner's config, boot choices and hand-edited boot block.
set -euo pipefail

usage() {
    cat <<'EOF'
Usage: sudo deploy/install.sh [OPTIONS]

Installs Tabletop Companion from this checkout: the system packages it needs, the
"companion" user, a virtual environment in /opt/companion with the package and its
[pi] extra, /etc/companion/config.toml (only if there is none), the boot settings in
config.txt, and companion.service (enabled). Run it again after `git pull` to
update: it keeps your config, your boot choices and a boot block you edited by
hand; with nothing new it changes nothing.

Boot choices (remembered in /etc/companion/install.conf, so an update keeps them):
  --spi, --no-spi            SPI on, for an SPI display (default: off)
  --usb-serial, --no-usb-serial
                             USB gadget serial console /dev/ttyGS0 (default: off)
  --uart, --no-uart          the serial console on GPIO14/15: /dev/serial0, or
                             /dev/ttyAMA0 on a Pi 5; takes the login console off
                             those pins in cmdline.txt (default: off)
  --power-button, --no-power-button
                             the shutdown key on GPIO21, or GPIO17 with
                             --i2s-amp (default: on)
  --i2s-amp, --no-i2s-amp    an I2S amplifier (MAX98357A) for the speech on
                             GPIO18/19/21 with its SD pin on GPIO4: its overlay
                             max98357a; BACK moves to GPIO22 in a new config
                             (hardware/README.md) (default: off)
  --rpi-gpio, --no-rpi-gpio  also install RPi.GPIO (the [pi-legacy] extra) for
                             [gpio] pin_factory = "rpigpio" on systems older than
                             Bookworm; never on a Pi 5 (default: off)
  --force-boot-config        replace a boot block you edited by hand with the one
                             these choices give (otherwise yours is kept)

Other options:
  --root DIR     install under DIR instead of / (for tests and staging; needs
                 --no-system)
  --no-system    skip apt-get, user and group creation, and systemctl
  --no-venv      skip the virtual environment and pip (the tests use this)
  --no-firmware  leave config.txt, cmdline.txt and the boot-time modules alone
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
FORCE_BOOT=0
PYTHON=python3
#: The boot choices and their defaults; ASKED is what this command line says.
CHOICES=(spi usb_serial uart power_button rpi_gpio i2s_amp)
declare -A DEFAULT=([spi]=no [usb_serial]=no [uart]=no [power_button]=yes [rpi_gpio]=no
    [i2s_amp]=no)
declare -A ASKED=() REMEMBERED=() CHOSEN=() RECORDED=()

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
        --force-boot-config) FORCE_BOOT=1; shift ;;
        --spi | --usb-serial | --uart | --power-button | --rpi-gpio | --i2s-amp)
            choice=${1#--}
            ASKED[${choice//-/_}]=yes
            shift
            ;;
        --no-spi | --no-usb-serial | --no-uart | --no-power-button | --no-rpi-gpio | \
            --no-i2s-amp)
            choice=${1#--no-}
            ASKED[${choice//-/_}]=no
            shift
            ;;
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
GROUPS_NEEDED=(gpio i2c spi dialout audio)
# espeak-ng and alsa-utils (aplay): the device's voice ([speech]).
APT_PACKAGES=(python3 python3-venv python3-dev gcc i2c-tools espeak-ng alsa-utils)
APT_PI_PACKAGES=(python3-lgpio liblgpio-dev swig)
#: The system commands the install needs besides coreutils, "command:package".
SYSTEM_COMMANDS=(systemctl:systemd apt-get:apt apt-cache:apt dpkg-query:dpkg
    useradd:passwd groupadd:passwd usermod:passwd getent:libc-bin)
PREFIX=$R/opt/companion
ETC=$R/etc/companion
CHOICES_FILE=$ETC/install.conf
STATE=$R/var/lib/companion
UNIT=$R/etc/systemd/system/companion.service
DROPINS=$R/etc/systemd/system/companion.service.d
MODULES=$R/etc/modules-load.d/companion.conf
LINK=$R/usr/local/bin/companion
BEGIN_MARK="# BEGIN tabletop-companion"
END_MARK="# END tabletop-companion"
#: sha256 of the blocks earlier installers wrote, before the choices were remembered:
#: such a block was never edited, so it may be replaced.
LEGACY_BLOCKS=(ced0fa024733eb6de6068f2d242f4a657ed8263eb133e69002995f2622a4f99c)
#: What the web page listens on in a config this installer writes (issue 15).
WEB_LISTEN=0.0.0.0:8080
#: With --i2s-amp: where BACK goes (GPIO19 is the amplifier's LRCLK), and the ALSA
#: device a new config speaks through (the max98357a overlay's card).
I2S_BACK_PIN=22
I2S_DEVICE=plughw:CARD=MAX98357A,DEV=0

unit_changed=0
venv_changed=0
firmware_changed=0
NOT_IN_APT=""

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

sha256_of() { sha256sum -- "$1" | cut -d' ' -f1; }

# --- 0. what is here, and the choices --------------------------------------------------
# Off Raspberry Pi OS / Debian a missing command would otherwise stop the run halfway
# with "command not found" (exit 127): name everything missing at once, before any change.
check_system_commands() {
    local entry missing=""
    for entry in "${SYSTEM_COMMANDS[@]}"; do
        if ! command -v "${entry%%:*}" >/dev/null; then
            missing+="${missing:+, }${entry%%:*} (${entry#*:})"
        fi
    done
    if [[ -n $missing ]]; then
        die "this system lacks $missing: the installer needs Raspberry Pi OS or Debian" \
            "with systemd; --no-system installs only the files (deploy/README.md)"
    fi
}

# install.conf: the boot choices as name=yes|no lines, plus what the installer itself
# last wrote (hashes) and the packages apt does not have here.
read_choices_file() {
    [[ -f $CHOICES_FILE ]] || return 0
    local line key value
    while IFS= read -r line || [[ -n $line ]]; do
        line=${line%%#*}
        line=${line//[[:space:]]/}
        [[ -n $line ]] || continue
        key=${line%%=*}
        value=${line#*=}
        case $key in
            spi | usb_serial | uart | power_button | rpi_gpio | i2s_amp)
                [[ $value == yes || $value == no ]] ||
                    die "$CHOICES_FILE: $key must be yes or no, not '$value'"
                REMEMBERED[$key]=$value
                ;;
            boot_block | config_toml) RECORDED[$key]=$value ;;
            checkout) ;; # where the last install came from: for companion's own hints
            not_in_apt) NOT_IN_APT=${value//,/ } ;;
            *) die "$CHOICES_FILE: unknown setting '$key' (see deploy/README.md)" ;;
        esac
    done <"$CHOICES_FILE"
}

# The Pi model from the device tree: "pi5" for the BCM2712 boards (Pi 5, Pi 500, CM5).
pi_model() {
    local model="" file=$R/proc/device-tree/model
    if [[ -r $file ]]; then
        model=$(tr -d '\0' <"$file")
    fi
    case $model in
        *"Raspberry Pi 5"* | *"Compute Module 5"*) echo pi5 ;;
        *) echo other ;;
    esac
}

uart_device() {
    if [[ $MODEL == pi5 ]]; then echo /dev/ttyAMA0; else echo /dev/serial0; fi
}

# The active (non-comment, non-blank) lines of a file, trimmed.
active_lines() { sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^#/d' -e '/^$/d' "$1"; }

# A block in config.txt from before install.conf existed and edited by hand says which
# options its owner wanted: start from those rather than from the defaults.
infer_choices_from_block() {
    local lines
    lines=$(active_lines "$1")
    has_line() { if grep -qE "$1" <<<"$lines"; then echo yes; else echo no; fi; }
    REMEMBERED[spi]=$(has_line '^dtparam=spi=on$')
    REMEMBERED[usb_serial]=$(has_line '^dtoverlay=dwc2$')
    REMEMBERED[uart]=$(has_line '^(enable_uart=1|dtparam=uart0=on)$')
    REMEMBERED[power_button]=$(has_line '^dtoverlay=gpio-shutdown')
    REMEMBERED[i2s_amp]=$(has_line '^dtoverlay=max98357a')
    say "no install.conf yet: took the choices from your boot block in $(boot_config)"
}

settle_choices() {
    local choice
    read_choices_file
    if [[ ! -f $CHOICES_FILE ]] && current_block "$WORK/current" &&
        ! is_legacy_block "$WORK/current"; then
        infer_choices_from_block "$WORK/current"
    fi
    for choice in "${CHOICES[@]}"; do
        CHOSEN[$choice]=${ASKED[$choice]:-${REMEMBERED[$choice]:-${DEFAULT[$choice]}}}
    done
    if [[ ${CHOSEN[rpi_gpio]} == yes && $MODEL == pi5 ]]; then
        # RPi.GPIO cannot drive a Pi 5's pins (RP1): refused before anything changes.
        printf 'install: error: --rpi-gpio: %s\n' "RPi.GPIO does not work on a Raspberry Pi 5,\
 which uses lgpio (the default): run again without it (--no-rpi-gpio if an earlier install\
 chose it)" >&2
        exit 2
    fi
    EXTRA=pi
    [[ ${CHOSEN[rpi_gpio]} == yes ]] && EXTRA=pi-legacy
    return 0
}

write_choices_file() {
    local choice file=$WORK/install.conf
    {
        printf '%s\n' "# Tabletop Companion: the choices deploy/install.sh was given, used again by the" \
            "# next run (an update). Change them with its options, e.g." \
            "# \`sudo deploy/install.sh --spi\`; deploy/README.md lists them."
        for choice in "${CHOICES[@]}"; do
            printf '%s=%s\n' "$choice" "${CHOSEN[$choice]}"
        done
        printf '%s\n' "# The checkout it was run from (companion's hints name its deploy/install.sh)."
        printf 'checkout=%s\n' "$SRC"
        printf '%s\n' "# What the installer wrote last (to tell your own edits from its own)."
        [[ -n ${RECORDED[boot_block]:-} ]] && printf 'boot_block=%s\n' "${RECORDED[boot_block]}"
        [[ -n ${RECORDED[config_toml]:-} ]] &&
            printf 'config_toml=%s\n' "${RECORDED[config_toml]}"
        if [[ -n $NOT_IN_APT ]]; then
            printf '%s\n' "# Packages apt-get update did not find here (delete to look again)."
            printf 'not_in_apt=%s\n' "${NOT_IN_APT// /,}"
        fi
    } >"$file"
    put_file "$file" "$CHOICES_FILE" 0644 || true
}

# --- 1. system packages --------------------------------------------------------------
# python3-lgpio (with liblgpio-dev and swig to build it if need be) comes from the
# Raspberry Pi OS archive; elsewhere pip has to manage without it. A package apt-get
# update did not find is remembered, so later runs do not update the lists for it again.
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

not_in_apt() { [[ " $NOT_IN_APT " == *" $1 "* ]]; }

install_packages() {
    local missing=() pkg
    for pkg in "${APT_PACKAGES[@]}" "${APT_PI_PACKAGES[@]}"; do
        is_installed "$pkg" || not_in_apt "$pkg" || missing+=("$pkg")
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
        if is_installed "$pkg" || not_in_apt "$pkg"; then
            continue
        elif has_candidate "$pkg"; then
            missing+=("$pkg")
        else
            say "warning: no package $pkg here (not Raspberry Pi OS?); pip will try without it"
            NOT_IN_APT="${NOT_IN_APT:+$NOT_IN_APT }$pkg"
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
# The stamp names what is installed: package version and extra, Python version and a
# hash of the sources. pip runs only when it differs, so a second run leaves the venv.
source_stamp() {
    local version python sources
    version=$(sed -n '/^version = /{s/^version = "\(.*\)"$/\1/p;q}' "$SRC/pyproject.toml")
    python=$("$PREFIX/bin/python" -c 'import sys; print(sys.version.split()[0])')
    sources=$(cd -- "$SRC" &&
        find pyproject.toml companion -type f ! -path '*/__pycache__/*' ! -name '*.pyc' \
            -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum)
    printf 'tabletop-companion %s [%s]\npython %s\nsources %s\n' \
        "$version" "$EXTRA" "$python" "${sources%% *}"
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
        say "pip install ${SRC}[$EXTRA]"
        "$PREFIX/bin/python" -m pip install --disable-pip-version-check --no-cache-dir \
            --root-user-action=ignore --upgrade "$WORK/src[$EXTRA]"
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
# set_toml FILE SECTION KEY VALUE: KEY = VALUE in [SECTION], replacing the key's line,
# adding it to the section, or adding the section at the end.
set_toml() {
    local file=$1 section=$2 key=$3 value=$4
    awk -v sec="[$section]" -v key="$key" -v val="$value" '
        function put() { print key " = " val; done = 1 }
        /^\[/ { if (inside && !done) put(); inside = ($0 == sec) }
        inside && !done && $0 ~ ("^" key "[ \t]*=") { put(); next }
        { print }
        END { if (!done) { if (!inside) printf "\n%s\n", sec; put() } }
    ' "$file" >"$file.new"
    mv -- "$file.new" "$file"
}

# The serial console device the choices ask for ("" = none); the UART wins over USB.
serial_device() {
    if [[ ${CHOSEN[uart]} == yes ]]; then
        uart_device
    elif [[ ${CHOSEN[usb_serial]} == yes ]]; then
        echo /dev/ttyGS0
    fi
}

# A new config: the example with the web page on port 8080 and the choices' serial
# console and pin factory filled in.
new_config() {
    local file=$1 device
    cp -- "$SRC/config/config.example.toml" "$file"
    set_toml "$file" web listen "\"$WEB_LISTEN\""
    device=$(serial_device)
    [[ -z $device ]] || set_toml "$file" serial url "\"$device\""
    [[ ${CHOSEN[rpi_gpio]} == no ]] || set_toml "$file" gpio pin_factory '"rpigpio"'
    if [[ ${CHOSEN[i2s_amp]} == yes ]]; then
        set_toml "$file" buttons back "$I2S_BACK_PIN"
        set_toml "$file" speech enabled true
        set_toml "$file" speech device "\"$I2S_DEVICE\""
    fi
}

install_config() {
    local device
    ensure_dir "$ETC" 0755
    put_file "$SRC/config/config.example.toml" "$ETC/config.example.toml" 0644 || true
    if [[ -e $ETC/config.toml ]]; then
        say "keeping $ETC/config.toml"
        device=$(serial_device)
        if [[ -n $device ]] &&
            ! grep -qE "^[[:space:]]*url[[:space:]]*=[[:space:]]*\"$device\"" "$ETC/config.toml"; then
            say "for the serial console, set url = \"$device\" under [serial] in" \
                "$ETC/config.toml"
        fi
        if [[ ${CHOSEN[i2s_amp]} == yes ]] &&
            ! grep -qE "^[[:space:]]*device[[:space:]]*=[[:space:]]*\"$I2S_DEVICE\"" \
                "$ETC/config.toml"; then
            say "for the I2S amplifier, set device = \"$I2S_DEVICE\" and enabled = true" \
                "under [speech], and back = $I2S_BACK_PIN under [buttons] (GPIO19 is the" \
                "amplifier's), in $ETC/config.toml"
        fi
    else
        new_config "$WORK/config.toml"
        install -m 0644 -- "$WORK/config.toml" "$ETC/config.toml"
        RECORDED[config_toml]=$(sha256_of "$ETC/config.toml")
        say "installed a new $ETC/config.toml (the web page on $WEB_LISTEN)"
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

# current_block OUT: the marked block of config.txt into OUT; false if there is none.
current_block() {
    local config
    config=$(boot_config)
    if [[ -z $config ]] || ! grep -q -x -F -- "$BEGIN_MARK" "$config"; then
        return 1
    fi
    awk -v b="$BEGIN_MARK" -v e="$END_MARK" '
        $0 == b { inside = 1 } inside { print } inside && $0 == e { exit }' "$config" >"$1"
}

is_legacy_block() {
    local sum
    sum=$(sha256_of "$1")
    [[ " ${LEGACY_BLOCKS[*]} " == *" $sum "* ]]
}

# The block the choices give: the base fragment, then one fragment per choice.
generate_block() {
    local fw=$SRC/firmware
    printf '%s\n' "$BEGIN_MARK"
    cat -- "$fw/config.txt"
    if [[ ${CHOSEN[power_button]} == yes ]]; then
        # GPIO21 is the I2S amplifier's data pin: the shutdown key moves to GPIO17.
        if [[ ${CHOSEN[i2s_amp]} == yes ]]; then cat -- "$fw/power-button-i2s.txt"
        else cat -- "$fw/power-button.txt"; fi
    fi
    [[ ${CHOSEN[spi]} == no ]] || cat -- "$fw/spi.txt"
    [[ ${CHOSEN[usb_serial]} == no ]] || cat -- "$fw/usb-serial.txt"
    [[ ${CHOSEN[i2s_amp]} == no ]] || cat -- "$fw/i2s-amp.txt"
    if [[ ${CHOSEN[uart]} == yes ]]; then
        if [[ $MODEL == pi5 ]]; then cat -- "$fw/uart-pi5.txt"; else cat -- "$fw/uart.txt"; fi
    fi
    printf '%s\n' "$END_MARK"
}

# Say which settings a hand-edited block has that the choices would not write, and back.
tell_block_differences() {
    local mine=$1 wanted=$2 only
    active_lines "$mine" >"$WORK/mine.lines"
    active_lines "$wanted" >"$WORK/wanted.lines"
    only=$(grep -v -x -F -f "$WORK/wanted.lines" "$WORK/mine.lines" || true)
    [[ -z $only ]] || say "  only in yours: ${only//$'\n'/, }"
    only=$(grep -v -x -F -f "$WORK/mine.lines" "$WORK/wanted.lines" || true)
    [[ -z $only ]] || say "  the choices would write: ${only//$'\n'/, }"
}

install_block() {
    local config=$1 block=$WORK/block new=$WORK/config.txt begins ends current=$WORK/current
    generate_block >"$block"
    begins=$(grep -c -x -F -- "$BEGIN_MARK" "$config" || true)
    ends=$(grep -c -x -F -- "$END_MARK" "$config" || true)
    if ((begins != ends || begins > 1)); then
        die "$config: damaged tabletop-companion block, fix it by hand (firmware/README.md)"
    fi
    if ((begins == 1)); then
        current_block "$current"
        if cmp -s -- "$current" "$block"; then
            RECORDED[boot_block]=$(sha256_of "$block")
            say "$config already has the boot settings"
            return
        fi
        if [[ $(sha256_of "$current") != "${RECORDED[boot_block]:-}" ]] &&
            ! is_legacy_block "$current"; then
            if ((!FORCE_BOOT)); then
                say "keeping your edited boot block in $config; it differs from what the" \
                    "choices give:"
                tell_block_differences "$current" "$block"
                say "  (sudo deploy/install.sh --force-boot-config replaces it)"
                return
            fi
            say "replacing your edited boot block in $config (--force-boot-config)"
        fi
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
    # Rewrite in place: keeps the file's owner and mode (it is on FAT anyway).
    cat -- "$new" >"$config"
    sync
    RECORDED[boot_block]=$(sha256_of "$block")
    say "updated the boot settings in $config"
    firmware_changed=1
}

# With the serial console on the header's UART, a kernel/login console there would
# answer on the same pins: take it out of cmdline.txt. On a Pi 5 serial0 is the debug
# connector, not the pins, so only a console on ttyAMA0 goes there.
free_uart_from_console() {
    local cmdline=$1/cmdline.txt word words=() kept=() removed=() pattern
    [[ ${CHOSEN[uart]} == yes && -f $cmdline ]] || return 0
    pattern='^console=(serial0|ttyAMA0|ttyS0),'
    [[ $MODEL == pi5 ]] && pattern='^console=ttyAMA0,'
    read -r -a words <"$cmdline" || true
    for word in "${words[@]}"; do
        if [[ $word =~ $pattern ]]; then removed+=("$word"); else kept+=("$word"); fi
    done
    ((${#removed[@]})) || return 0
    printf '%s\n' "${kept[*]}" >"$cmdline"
    sync
    say "removed ${removed[*]} from $cmdline: the login console would answer on the" \
        "serial console's pins ($(uart_device))"
    firmware_changed=1
}

install_firmware() {
    local config
    config=$(boot_config)
    if [[ -z $config ]]; then
        say "no /boot/firmware/config.txt: skipping the boot settings (see firmware/README.md)"
    else
        install_block "$config"
        free_uart_from_console "$(dirname -- "$config")"
    fi
    cp -- "$SRC/deploy/modules-load.conf" "$WORK/modules.conf"
    if [[ ${CHOSEN[usb_serial]} == yes ]]; then
        printf '%s\n' "# --usb-serial: the USB gadget serial port /dev/ttyGS0" g_serial \
            >>"$WORK/modules.conf"
    fi
    if put_file "$WORK/modules.conf" "$MODULES" 0644; then
        firmware_changed=1
    fi
}

# --- what companion reads in the config -------------------------------------------------
# One reader for the installer and the service: the installed program itself (`companion
# config --json`; this checkout's with --no-venv), so a config companion refuses is said
# here in companion's own line, and the page and the backup folder are told as the
# service will read them. read_config sets:
#   CONFIG_STATE    ok; refused (companion refuses the file: the service will not start);
#                   unknown (companion could not be asked). CONFIG_PROBLEM: the line why.
#   PAGE_REACH       off, loopback, everywhere (0.0.0.0, [::]), address (one address) or
#                   unknown (a name this machine finds no address for)
#   PAGE_LISTEN PAGE_HOST PAGE_PORT PAGE_OPEN_READS BACKUP_DIR: the values, as read
CONFIG_STATE=unknown
CONFIG_PROBLEM=""
PAGE_REACH=off PAGE_LISTEN="" PAGE_HOST="" PAGE_PORT="" PAGE_OPEN_READS=true BACKUP_DIR=""

# companion_here ARGS...: the companion the service runs (this checkout's without a venv).
companion_here() {
    if [[ -x $PREFIX/bin/companion ]]; then
        "$PREFIX/bin/companion" "$@"
    else
        # -P: not the current directory first (a checkout run from another one)
        PYTHONPATH=$SRC${PYTHONPATH:+:$PYTHONPATH} "$PYTHON" -P -m companion "$@"
    fi
}

# `companion config --json` as the six lines read_config takes. Where the page listens is
# the address the service binds, found as it finds it (getaddrinfo, passive): so 127.1,
# 2130706433, localhost and ::ffff:127.0.0.1 are the loopback as much as 127.0.0.1 and
# ::1 are, and 0 is everywhere; the port as a number (08080 is 8080).
CONFIG_LINES='
import ipaddress, json, socket, sys
config = json.load(sys.stdin)
web = config["web"]
host, _, port = web["listen"].rpartition(":")
name = host[1:-1] if host.startswith("[") else host
address = None
if web["listen"]:
    port = str(int(port))
    try:
        found = socket.getaddrinfo(name, int(port), type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)[0][4][0]
        address = ipaddress.ip_address(found.partition("%")[0])
    except OSError:
        address = "unknown"  # a name nothing resolves: the service cannot listen on it
    except (ValueError, IndexError):
        address = None
    if getattr(address, "ipv4_mapped", None) is not None:
        address = address.ipv4_mapped
if not web["listen"]:
    reach = "off"
elif address == "unknown":
    reach = "unknown"
elif host.lower() == "localhost" or (address is not None and address.is_loopback):
    reach = "loopback"
elif address is not None and address.is_unspecified:
    reach = "everywhere"
else:
    reach = "address"
for line in (reach, web["listen"], host, port, str(web["open_reads"]).lower(),
             config["backup"]["dir"]):
    print(line)
'

read_config() {
    local config=$ETC/config.toml json="" python=$PYTHON status=0 lines=()
    [[ -x $PREFIX/bin/python ]] && python=$PREFIX/bin/python
    json=$(companion_here config --config "$config" --json 2>"$WORK/config.err") || status=$?
    if ((status == 78)); then # EX_CONFIG: the service would exit with it too
        CONFIG_STATE=refused
        CONFIG_PROBLEM=$(head -n 1 -- "$WORK/config.err")
        return 0
    fi
    if ((status == 0)); then
        mapfile -t lines < <(printf '%s\n' "$json" | "$python" -c "$CONFIG_LINES" 2>/dev/null)
    fi
    if ((${#lines[@]} != 6)); then
        CONFIG_PROBLEM="companion did not answer (exit $status): $(head -n 1 -- "$WORK/config.err")"
        return 0
    fi
    CONFIG_STATE=ok
    PAGE_REACH=${lines[0]} PAGE_LISTEN=${lines[1]} PAGE_HOST=${lines[2]} PAGE_PORT=${lines[3]}
    PAGE_OPEN_READS=${lines[4]} BACKUP_DIR=${lines[5]}
}

# unit_values NAME: every value the unit and its drop-ins give NAME, one a line, in the
# order systemd reads them (an empty NAME= clears the ones before).
unit_values() {
    local name=$1 file line words values=()
    for file in "$UNIT" "$DROPINS"/*.conf; do
        [[ -f $file ]] || continue
        while IFS= read -r line || [[ -n $line ]]; do
            line=${line#"${line%%[![:space:]]*}"}
            [[ $line == "$name="* ]] || continue
            line=${line#*=}
            if [[ -z ${line//[[:space:]]/} ]]; then
                values=()
            else
                read -r -a words <<<"$line"
                values+=("${words[@]}")
            fi
        done <"$file"
    done
    ((${#values[@]} == 0)) || printf '%s\n' "${values[@]}"
}

# The last value of NAME in the unit and its drop-ins ("" when none).
unit_value() { unit_values "$1" | tail -n 1; }

is_no() { [[ ${1,,} == @(no|false|off|0) ]]; }

# --- the owner is told what the network sees -------------------------------------------
tell_about_the_page() {
    local config=$ETC/config.toml where address
    if [[ $CONFIG_STATE == refused ]]; then
        say "companion refuses $config, so the service will not start until it is fixed:"
        say "  $CONFIG_PROBLEM"
        say "  after fixing it: companion config (checks it), then: sudo systemctl restart companion"
        return 0
    fi
    if [[ $CONFIG_STATE != ok ]]; then
        say "cannot tell whether the table page is on: $config: $CONFIG_PROBLEM" \
            "(companion says what is wrong when it starts: journalctl -u companion)"
        return 0
    fi
    case $PAGE_REACH in
        off)
            say "the table page is off ([web] listen = \"\" in $config)"
            return 0
            ;;
        unknown)
            say "the table page will not start: this machine finds no address for" \
                "$PAGE_HOST ([web] listen = \"$PAGE_LISTEN\" in $config); the device runs" \
                "without it (journalctl -u companion says so)"
            return 0
            ;;
        loopback) where="this machine only: http://$PAGE_HOST:$PAGE_PORT" ;;
        everywhere)
            address=$(hostname -I 2>/dev/null | awk '{print $1}') || address=""
            where="the whole local network: http://$(hostname 2>/dev/null || echo raspberrypi).local:$PAGE_PORT"
            where+="${address:+ or http://$address:$PAGE_PORT}"
            ;;
        *) where="the network at http://$PAGE_HOST:$PAGE_PORT" ;;
    esac
    say "the table page is on, for $where ([web] listen = \"$PAGE_LISTEN\")"
    if [[ $PAGE_OPEN_READS == false ]]; then
        say "reading it needs a paired phone ([web] open_reads = false)"
    elif [[ $PAGE_REACH == loopback ]]; then
        say "it listens on the loopback: no other machine reaches it; a browser or program" \
            "on this one can read it ([web] open_reads = true)"
    else
        say "anyone on that network can read it: the game on the table, the history," \
            "the players and their figures ([web] open_reads = true)"
    fi
    say "changing anything needs a phone paired with the code under Settings > Pair a phone"
    say "reads for paired phones only: open_reads = false under [web] in $config;" \
        "page off: listen = \"\"; then: sudo systemctl restart companion"
    tell_port_allowed
}

# The unit lets the service listen on port 8080 only (SocketBindAllow=): a page moved to
# another port would not start, so the owner is told how to let it.
tell_port_allowed() {
    local allowed
    allowed=" $(unit_values SocketBindAllow | tr '\n' ' ')"
    if [[ $allowed == *" any "* || $allowed == *" tcp:$PAGE_PORT "* ||
        $allowed == *" $PAGE_PORT "* ]]; then
        return 0
    fi
    say "warning: the service may listen on${allowed% } only (SocketBindAllow= in $UNIT)," \
        "so the page on port $PAGE_PORT will not start: a drop-in lets it, see" \
        "systemd/README.md (Network)"
}

# --- 6. service --------------------------------------------------------------------------
install_unit() {
    if put_file "$SRC/systemd/companion.service" "$UNIT" 0644; then
        unit_changed=1
    fi
}

# ProtectSystem=strict leaves every folder but the state dir read-only for the service:
# a drop-in lets it write the configured [backup] dir (none when there is none).
allow_backup_dir() {
    local config=$ETC/config.toml dir=$BACKUP_DIR dropin=$DROPINS/backup-dir.conf
    if [[ $CONFIG_STATE != ok ]]; then
        return 0 # the drop-in stays as it is until companion takes the config (said below)
    fi
    if [[ -n $dir ]] && backup_dir_allowed "$dir" "$config"; then
        dir=$ALLOWED_DIR
    else
        dir=""
    fi
    if [[ -z $dir ]]; then
        if [[ -e $dropin ]]; then
            rm -f -- "$dropin"
            rmdir --ignore-fail-on-non-empty -- "$DROPINS"
            unit_changed=1
            say "removed $dropin: the service writes no backup folder now"
        fi
        return 0
    fi
    {
        printf '%s\n' "# Written by deploy/install.sh from [backup] dir in /etc/companion/config.toml:" \
            "# the unit's ProtectSystem=strict leaves every other folder read-only. The" \
            "# leading - : a stick that is not plugged in does not stop the service." \
            "[Service]" "ReadWritePaths=-$dir"
    } >"$WORK/backup-dir.conf"
    ensure_dir "$DROPINS" 0755
    if put_file "$WORK/backup-dir.conf" "$dropin" 0644; then
        unit_changed=1
    fi
    say "the service may write the backup folder $dir ([backup] dir; $dropin)"
    say "  it must be mounted before the service starts (or: sudo systemctl restart" \
        "companion)"
    tell_backup_owner "$dir"
}

# backup_dir_allowed DIR CONFIG: true when the service can be let write DIR (then
# ALLOWED_DIR is DIR written plainly, without . or .. or a trailing /); else says why.
ALLOWED_DIR=""
backup_dir_allowed() {
    local dir=$1 config=$2 why resolved
    if [[ $dir != /* || $dir =~ [[:space:]\"\'%\\] ]]; then
        say "[backup] dir = \"$dir\" in $config: the service can only be let write an" \
            "absolute path without spaces, quotes, \\ or %: backups cannot be written"
        return 1
    fi
    ALLOWED_DIR=$(realpath -m -s -- "$dir")
    # Where it leads: a link on the way (/media/usb -> /tmp/stick) takes the service
    # where the link points, in its own namespace.
    resolved=$(realpath -m -- "$R$ALLOWED_DIR")
    resolved=/${resolved#"$R"}
    resolved=$(realpath -m -s -- "$resolved")
    why=$(hidden_by_unit "$ALLOWED_DIR")
    if [[ -z $why && $resolved != "$ALLOWED_DIR" ]]; then
        why=$(hidden_by_unit "$resolved")
        why=${why:+$ALLOWED_DIR leads to $resolved: $why}
    fi
    if [[ -z $why ]]; then
        why=$(system_folder "$ALLOWED_DIR")
        [[ -n $why || $resolved == "$ALLOWED_DIR" ]] || why=$(system_folder "$resolved")
    fi
    if [[ -n $why ]]; then
        say "[backup] dir = \"$dir\" in $config: the service cannot use it ($why):" \
            "no backup would reach you; use a folder under /media, /mnt or /srv"
        return 1
    fi
}

# system_folder DIR: why DIR is the system's own (the root, the programs, their config,
# the boot files): a drop-in letting the service write it would undo ProtectSystem=strict
# ("" when it is not).
system_folder() {
    local dir=$1 top
    case $dir in
        / | /var | /var/lib | /opt | /srv | /mnt | /media | /home | /run)
            echo "$dir is a folder of folders: the service would be let write every one of them"
            return
            ;;
    esac
    for top in /usr /etc /boot /efi /bin /sbin /lib /lib32 /lib64 /libx32 "/${PREFIX#"$R"/}"; do
        if [[ $dir == "$top" || $dir == "$top"/* ]]; then
            echo "$top holds the system or its programs: the service may not change them"
            return
        fi
    done
}

# hidden_by_unit DIR: why the unit keeps DIR from the service ("" when it does not):
# the kernel's file systems, PrivateTmp's /tmp and /var/tmp of the service's own (emptied
# at each start), ProtectHome's /home, /root and /run/user, InaccessiblePaths.
hidden_by_unit() {
    local dir=$1/ value path
    case $dir in
        /proc/* | /sys/* | /dev/*)
            value=${dir#/}
            echo "/${value%%/*} is the kernel's, not a folder for files"
            return
            ;;
    esac
    value=$(unit_value PrivateTmp)
    if [[ -n $value ]] && ! is_no "$value"; then
        case $dir in
            /tmp/* | /var/tmp/*)
                echo "PrivateTmp=$value in $UNIT gives it a /tmp and /var/tmp of its own," \
                    "emptied at each start"
                return
                ;;
        esac
    fi
    value=$(unit_value ProtectHome)
    if [[ -n $value ]] && ! is_no "$value"; then
        case $dir in
            /home/* | /root/* | /run/user/*)
                echo "ProtectHome=$value in $UNIT: it cannot see /home, /root or /run/user"
                return
                ;;
        esac
    fi
    while IFS= read -r path; do
        path=${path#-}
        path=${path#+}
        if [[ $path == /* && $dir == "${path%/}"/* ]]; then
            echo "InaccessiblePaths=$path in the unit hides it"
            return
        fi
    done < <(unit_values InaccessiblePaths)
}

# tell_backup_owner DIR: when the folder is there and the user companion cannot write it,
# who owns it and what would let companion write it (else every backup fails).
tell_backup_owner() {
    local dir=$1 here=$R$1 owner group mode uid gid fs="" source="" target=""
    [[ -d $here ]] || return 0
    read -r owner group mode uid gid < <(stat -c '%U %G %a %u %g' -- "$here")
    if service_may_write "$uid" "$gid" "$mode"; then
        return 0
    fi
    say "  but the folder does not let the user $USER_NAME write: $dir belongs to" \
        "$owner:$group (mode $mode)"
    if command -v findmnt >/dev/null; then
        read -r fs source target < <(findmnt -n -o FSTYPE,SOURCE,TARGET -T "$here" || true)
    fi
    target=/${target#"$R"}
    target=${target//\/\//\/}
    case $fs in
        vfat | msdos | exfat | ntfs | ntfs3 | fuseblk)
            say "  $source ($fs) has no owners of its own: mount it with" \
                "uid=$USER_NAME,gid=$USER_NAME, e.g. this line in /etc/fstab:"
            say "    $source $target $fs defaults,nofail,uid=$USER_NAME,gid=$USER_NAME 0 0"
            say "  then: sudo umount $target && sudo mount $target (running this installer" \
                "again does not change who may write it)"
            ;;
        *)
            say "  to let it: sudo chown $USER_NAME:$USER_NAME $dir (running this installer" \
                "again does not change who may write it)"
            ;;
    esac
}

# service_may_write UID GID MODE: whether the user companion may write (and enter) a
# folder of that owner, group and mode (the user not made yet: as anyone else).
service_may_write() {
    local uid=$1 gid=$2 mode=$((8#$3)) mine="" groups=""
    mine=$(id -u "$USER_NAME" 2>/dev/null) || mine=""
    groups=" $(id -G "$USER_NAME" 2>/dev/null) " || groups=" "
    if [[ $mine == 0 ]]; then
        return 0
    elif [[ -n $mine && $uid == "$mine" ]]; then
        (((mode >> 6 & 3) == 3))
    elif [[ $groups == *" $gid "* ]]; then
        (((mode >> 3 & 3) == 3))
    else
        (((mode & 3) == 3))
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
    check_system_commands
fi
MODEL=$(pi_model)
settle_choices
if ((SYSTEM)); then
    install_packages
    create_user
fi
if ((VENV)); then
    install_venv
fi
install_config
read_config
if ((FIRMWARE)); then
    install_firmware
fi
install_unit
allow_backup_dir
write_choices_file
if ((SYSTEM)); then
    start_service
fi
tell_about_the_page
say "done"
