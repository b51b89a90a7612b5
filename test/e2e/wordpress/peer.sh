#!/usr/bin/env bash
# A throw-away, real WordPress (Debian 12: WordPress 6.1, PHP 8.2, MariaDB 10.11) on
# loopback with the Inkpress Connector plugin, for end-to-end tests. No Docker, no Apache.
#
#   peer.sh install        install the Debian packages if missing (needs root + apt)
#   peer.sh up             start MariaDB + php -S, install WordPress, plugin, users, categories;
#                          prints KEY=value lines (also in $WP_PEER_DIR/env)
#   peer.sh env            print the KEY=value lines of a running peer
#   peer.sh status         say what is running
#   peer.sh stop-web       stop only the web server (site down, database kept)
#   peer.sh start-web      start the web server again
#   peer.sh php-eval CODE  run PHP CODE with WordPress loaded (as admin), e.g.
#                          peer.sh php-eval 'echo get_post(5)->post_status;'
#   peer.sh down           stop everything and remove the state dir
#
# Environment: WP_PEER_DIR (default /tmp/inkpress-wp-peer), WP_PEER_PORT (8089),
# WP_PEER_EDITOR_PASSWORD (inkpress-editor-pass-1), WP_PEER_ADMIN_PASSWORD
# (inkpress-admin-pass-1), WP_PEER_PLAIN_PASSWORD (plain-author-pass-1).
# Users: inkpress (Inkpress Editor), admin (administrator), plain (author), reader
# (subscriber), boss (administrator + Inkpress Editor), chief (editor + Inkpress Editor);
# inkpress, admin and boss have an application password each.
# The peer's mu-plugin (test peer only) lets a test pose as another client address for the
# plugin's login throttle with the header X-Peer-Client-Address, and logs every call of the
# site's `authenticate` and `wp_login_failed` hooks to the option inkpress_peer_auth_log.
# MariaDB listens only on a unix socket inside the state dir (no TCP port to collide on).
set -euo pipefail

STATE="${WP_PEER_DIR:-/tmp/inkpress-wp-peer}"
PORT="${WP_PEER_PORT:-8089}"
EDITOR_LOGIN="inkpress"
EDITOR_PASSWORD="${WP_PEER_EDITOR_PASSWORD:-inkpress-editor-pass-1}"
ADMIN_LOGIN="admin"
ADMIN_PASSWORD="${WP_PEER_ADMIN_PASSWORD:-inkpress-admin-pass-1}"
PLAIN_LOGIN="plain"
PLAIN_PASSWORD="${WP_PEER_PLAIN_PASSWORD:-plain-author-pass-1}"
SUBSCRIBER_LOGIN="reader"
SUBSCRIBER_PASSWORD="reader-subscriber-pass-1"
ROLE_ADMIN_LOGIN="boss"
ROLE_ADMIN_PASSWORD="boss-admin-editor-pass-1"
ROLE_EDITOR_LOGIN="chief"
ROLE_EDITOR_PASSWORD="chief-editor-editor-pass-1"
DB_NAME=wordpress
DB_USER=wordpress
DB_PASSWORD=wordpress-db-pass

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PLUGIN_SRC="$(cd "$SCRIPT_DIR/../../.." && pwd)/wordpress-plugin/inkpress-connector"
WP_SRC=/usr/share/wordpress
MARKER="$STATE/.inkpress-wp-peer"
SITE="$STATE/site"
DATADIR="$STATE/db"
SOCK="$STATE/mysqld.sock"
DB_PIDFILE="$STATE/mariadb.pid"
WEB_PIDFILE="$STATE/web.pid"
URL="http://127.0.0.1:$PORT"

log() { printf 'peer: %s\n' "$*" >&2; }
die() { printf 'peer: error: %s\n' "$*" >&2; exit 1; }

# Print the last lines of a log file to stderr (for failures).
show_log() { [ -f "$1" ] && { printf -- '--- %s (tail) ---\n' "$1" >&2; tail -n 30 "$1" >&2; }; return 0; }

# Alive and not a zombie (orphans may sit unreaped if PID 1 does not reap).
pid_dead() { ! pid_alive "$1"; }
pid_alive() {
  [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null || return 1
  local state
  state="$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null || true)"
  [ "$state" != "Z" ]
}
read_pid() { if [ -f "$1" ]; then tr -dc '0-9' <"$1"; fi; }

db_alive() { pid_alive "$(read_pid "$DB_PIDFILE")" && [ -S "$SOCK" ]; }
web_alive() { pid_alive "$(read_pid "$WEB_PIDFILE")"; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }

# wait_for DESCRIPTION TIMEOUT_S COMMAND... : poll every 0.1 s (DESCRIPTION documents
# the call site; callers print their own error).
wait_for() {
  local timeout="$2"; shift 2
  local deadline=$((SECONDS + timeout))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.1
  done
}

# kill_group PIDFILE NAME [SIGNAL] : signal the process group (default TERM), then KILL
# after 5 s. Everything here is throw-away, so callers use KILL where a clean shutdown
# buys nothing (php -S takes ~1.5 s to exit on TERM).
kill_group() {
  local pidfile="$1" name="$2" sig="${3:-TERM}" pid
  pid="$(read_pid "$pidfile")"
  if pid_alive "$pid"; then
    kill -"$sig" -- "-$pid" 2>/dev/null || kill -"$sig" "$pid" 2>/dev/null || true
    if ! wait_for "$name exit" 5 pid_dead "$pid"; then
      log "$name (pid $pid) did not stop on TERM; sending KILL"
      kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
      wait_for "$name exit" 5 pid_dead "$pid" || die "could not stop $name (pid $pid)"
    fi
  fi
  rm -f "$pidfile"
}

cmd_install() {
  local pkgs=(wordpress php php8.2-cgi php-cli php-mysql php-mbstring php-xml mariadb-server webfs curl)
  local missing=() p
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    log "packages already installed"
    return 0
  fi
  [ "$(id -u)" -eq 0 ] || die "installing ${missing[*]} needs root"
  log "installing: ${missing[*]}"
  local aptlog; aptlog="$(mktemp)"
  if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}"; } >"$aptlog" 2>&1; then
    show_log "$aptlog"; rm -f "$aptlog"; die "apt-get failed"
  fi
  rm -f "$aptlog"
  # Packaged services normally do not start here; if one did, it is not ours to keep.
  log "packages installed"
}

check_prereqs() {
  local c
  for c in php mariadbd mariadb-install-db mariadb mariadb-admin curl setsid; do
    command -v "$c" >/dev/null 2>&1 || die "'$c' not found; run: $0 install"
  done
  [ -f "$WP_SRC/wp-settings.php" ] || die "$WP_SRC missing; run: $0 install"
  [ -f "$PLUGIN_SRC/inkpress-connector.php" ] || die "plugin not found at $PLUGIN_SRC"
  # Not `php -m | grep -q`: grep quitting early can kill php with SIGPIPE, failing pipefail.
  local modules
  modules="$(php -m)"
  grep -qi '^mysqli$' <<<"$modules" || die "php mysqli extension missing; run: $0 install"
  grep -qi '^dom$' <<<"$modules" || die "php dom extension missing; run: $0 install"
}

start_db() {
  if db_alive; then return 0; fi
  rm -f "$SOCK" "$DB_PIDFILE"
  if [ ! -d "$DATADIR/mysql" ]; then
    mkdir -p "$DATADIR"
    mariadb-install-db --no-defaults --datadir="$DATADIR" --user="$(id -un)" \
      --auth-root-authentication-method=socket --skip-test-db >"$STATE/mariadb-install.log" 2>&1 \
      || { show_log "$STATE/mariadb-install.log"; die "mariadb-install-db failed"; }
  fi
  setsid mariadbd --no-defaults --datadir="$DATADIR" --socket="$SOCK" --skip-networking \
    --user="$(id -un)" --pid-file="$STATE/mariadbd.pid" --log-error="$STATE/mariadb.log" \
    --innodb-buffer-pool-size=32M --skip-log-bin --innodb-flush-log-at-trx-commit=2 \
    </dev/null >>"$STATE/mariadb.log" 2>&1 &
  echo $! >"$DB_PIDFILE"
  if ! wait_for "mariadb" 30 mariadb-admin --no-defaults --socket="$SOCK" -uroot ping >/dev/null 2>&1; then
    show_log "$STATE/mariadb.log"; die "MariaDB did not come up within 30 s"
  fi
}

sql() { mariadb --no-defaults --socket="$SOCK" -uroot -e "$1"; }

start_web() {
  if web_alive; then return 0; fi
  if port_open; then die "port $PORT is already in use by another process (set WP_PEER_PORT)"; fi
  PHP_CLI_SERVER_WORKERS=4 setsid php -d display_errors=stderr -d memory_limit=256M \
    -S "127.0.0.1:$PORT" -t "$SITE" "$STATE/router.php" </dev/null >>"$STATE/web.log" 2>&1 &
  echo $! >"$WEB_PIDFILE"
  if ! wait_for "web server" 15 port_open; then
    show_log "$STATE/web.log"; die "php -S did not listen on $PORT within 15 s"
  fi
}

write_site() {
  rm -rf "$SITE"
  cp -rL "$WP_SRC" "$SITE"
  rm -f "$SITE/wp-config.php" "$SITE/.htaccess"
  mkdir -p "$SITE/wp-content/mu-plugins" "$SITE/wp-content/uploads" "$SITE/wp-content/plugins"
  local salts
  # shellcheck disable=SC2016 # PHP code, not shell
  salts="$(php -r 'foreach (["AUTH_KEY","SECURE_AUTH_KEY","LOGGED_IN_KEY","NONCE_KEY","AUTH_SALT","SECURE_AUTH_SALT","LOGGED_IN_SALT","NONCE_SALT"] as $k) printf("define(%s, %s);\n", var_export($k, true), var_export(bin2hex(random_bytes(32)), true));')"
  cat >"$SITE/wp-config.php" <<PHP
<?php
// Generated by test/e2e/wordpress/peer.sh for a throw-away test site.
define( 'DB_NAME', '$DB_NAME' );
define( 'DB_USER', '$DB_USER' );
define( 'DB_PASSWORD', '$DB_PASSWORD' );
define( 'DB_HOST', 'localhost:$SOCK' );
define( 'DB_CHARSET', 'utf8mb4' );
define( 'DB_COLLATE', '' );
$salts
\$table_prefix = 'wp_';
define( 'WP_HOME', '$URL' );
define( 'WP_SITEURL', '$URL' );
define( 'WP_ENVIRONMENT_TYPE', 'local' );
define( 'DISABLE_WP_CRON', true );
define( 'AUTOMATIC_UPDATER_DISABLED', true );
define( 'WP_AUTO_UPDATE_CORE', false );
define( 'WP_HTTP_BLOCK_EXTERNAL', true );
define( 'WP_DEBUG', false );
define( 'WP_DEBUG_LOG', '$STATE/debug.log' );
define( 'FS_METHOD', 'direct' );
if ( ! defined( 'ABSPATH' ) ) {
	define( 'ABSPATH', __DIR__ . '/' );
}
require_once ABSPATH . 'wp-settings.php';
PHP
  cat >"$SITE/wp-content/mu-plugins/inkpress-peer.php" <<'PHP'
<?php
// Test peer only: never try to send mail (there is no sendmail).
add_filter( 'pre_wp_mail', '__return_true' );
// Test peer only: records what reaches the site's own login hooks (as a login limiter sees it).
function inkpress_peer_auth_log( $line ) {
	$log   = get_option( 'inkpress_peer_auth_log', array() );
	$log[] = $line;
	update_option( 'inkpress_peer_auth_log', $log, false );
}
add_filter(
	'authenticate',
	function ( $user, $username ) {
		inkpress_peer_auth_log( 'authenticate ' . $username );
		return $user;
	},
	1,
	2
);
add_action(
	'wp_login_failed',
	function ( $username ) {
		inkpress_peer_auth_log( 'wp_login_failed ' . $username );
	}
);
// Test peer only: lets a test pose as another client address for the login throttle.
add_filter(
	'inkpress_connector_client_address',
	function ( $address ) {
		return isset( $_SERVER['HTTP_X_PEER_CLIENT_ADDRESS'] ) ? (string) $_SERVER['HTTP_X_PEER_CLIENT_ADDRESS'] : $address;
	}
);
PHP
  # Debian's package ships no theme, and a post page is empty without one: a minimal classic
  # theme that prints wp_head() (meta description, JSON-LD) and the content.
  mkdir -p "$SITE/wp-content/themes/inkpress-peer"
  cat >"$SITE/wp-content/themes/inkpress-peer/style.css" <<'CSS'
/*
Theme Name: Inkpress Peer
Description: Minimal classic theme of the Inkpress test peer.
*/
CSS
  cat >"$SITE/wp-content/themes/inkpress-peer/index.php" <<'PHP'
<!DOCTYPE html>
<html <?php language_attributes(); ?>>
<head>
<meta charset="<?php bloginfo( 'charset' ); ?>">
<title><?php echo esc_html( wp_get_document_title() ); ?></title>
<?php wp_head(); ?>
</head>
<body <?php body_class(); ?>>
<?php
while ( have_posts() ) {
	the_post();
	the_title( '<h1>', '</h1>' );
	echo '<div class="entry-content">';
	the_content();
	echo '</div>';
}
wp_footer();
?>
</body>
</html>
PHP
  # Test only: stand-ins that make the Inkpress plugin see an SEO plugin as active (option
  # inkpress_peer_seo_stub), by the constant (or class) each plugin defines; the Yoast, Rank Math
  # and All in One SEO stand-ins print their schema graph from the filters those plugins
  # document, unless their schema output is turned off (option inkpress_peer_schema_off: Yoast's
  # wpseo_json_ld_output filter, Rank Math's Schema module, AIOSEO's aioseo_schema_disable).
  # aioseo_model also stands in for AIOSEO's Post model (savePost/getPost, kept in an option).
  # Option inkpress_peer_log_show_tables counts SHOW TABLES queries (option
  # inkpress_peer_show_tables); option inkpress_peer_translate prefixes every string of the
  # inkpress-connector text domain with "[xx] " (a stand-in translation).
  cat >"$SITE/wp-content/mu-plugins/inkpress-peer-seo-stubs.php" <<'PHP'
<?php
namespace Yoast\WP\SEO\Generators\Schema {
	if ( 'yoast' === \get_option( 'inkpress_peer_seo_stub' ) && ! \class_exists( __NAMESPACE__ . '\Abstract_Schema_Piece' ) ) {
		abstract class Abstract_Schema_Piece {
			public $context;
			public $helpers;
			abstract public function generate();
			public function is_needed() { return true; }
		}
	}
}
namespace RankMath {
	if ( 'rank_math' === \get_option( 'inkpress_peer_seo_stub' ) && ! \class_exists( __NAMESPACE__ . '\Helper' ) ) {
		class Helper {
			public static function is_module_active( $module ) {
				return 'rich-snippet' !== $module || '1' !== (string) \get_option( 'inkpress_peer_schema_off' );
			}
		}
	}
}
namespace AIOSEO\Plugin\Common\Models {
	if ( 'aioseo_model' === \get_option( 'inkpress_peer_seo_stub' ) && ! \class_exists( __NAMESPACE__ . '\Post' ) ) {
		class Post {
			public static function savePost( $postId, $data ) {
				$saved = \get_option( 'inkpress_peer_aioseo_saved', array() );
				$row   = $saved[ $postId ] ?? array( 'twitter_use_og' => true, 'robots_default' => true );
				foreach ( $data as $key => $value ) {
					$row[ $key ] = 'keyphrases' === $key ? \wp_json_encode( $value ) : \sanitize_text_field( $value );
				}
				$saved[ $postId ] = $row;
				\update_option( 'inkpress_peer_aioseo_saved', $saved, false );
				\do_action( 'aioseo_insert_post', $postId );
			}
			public static function getPost( $postId ) {
				$saved = \get_option( 'inkpress_peer_aioseo_saved', array() );
				return (object) ( $saved[ $postId ] ?? array() );
			}
		}
	}
}
namespace {
	$inkpress_peer_stub      = (string) get_option( 'inkpress_peer_seo_stub' );
	$inkpress_peer_schema_on = '1' !== (string) get_option( 'inkpress_peer_schema_off' );
	$inkpress_peer_constants = array(
		'yoast'             => 'WPSEO_VERSION',
		'rank_math'         => 'RANK_MATH_VERSION',
		'aioseo'            => 'AIOSEO_VERSION',
		'aioseo_model'      => 'AIOSEO_VERSION',
		'seopress'          => 'SEOPRESS_VERSION',
		'the_seo_framework' => 'THE_SEO_FRAMEWORK_VERSION',
		'siteseo'           => 'SITESEO_VERSION',
		'slim_seo'          => 'SLIM_SEO_VER',
		'smartcrawl'        => 'SMARTCRAWL_VERSION',
		'squirrly'          => 'SQ_VERSION',
	);
	if ( isset( $inkpress_peer_constants[ $inkpress_peer_stub ] ) ) {
		define( $inkpress_peer_constants[ $inkpress_peer_stub ], '0.0.0-inkpress-peer-stub' );
	}
	if ( 'jetpack' === $inkpress_peer_stub && ! class_exists( 'Jetpack' ) ) {
		// Jetpack with its SEO tools module on.
		class Jetpack {
			public static function is_module_active( $module ) {
				return 'seo-tools' === $module;
			}
		}
	}
	if ( ! $inkpress_peer_schema_on ) {
		add_filter( 'wpseo_json_ld_output', '__return_false' );
		add_filter( 'aioseo_schema_disable', '__return_true' );
	}
	if ( in_array( $inkpress_peer_stub, array( 'aioseo', 'aioseo_model' ), true ) ) {
		add_action( 'wp_head', function () {
			if ( apply_filters( 'aioseo_schema_disable', false ) || ! is_singular() ) {
				return;
			}
			$graphs = apply_filters( 'aioseo_schema_output', array( array( '@type' => 'Article', 'name' => 'aioseo-stub' ) ) );
			echo '<script type="application/ld+json" class="aioseo-schema">' . wp_json_encode( array( '@context' => 'https://schema.org', '@graph' => array_values( $graphs ) ) ) . "</script>\n";
		}, 20 );
	}
	if ( '1' === (string) get_option( 'inkpress_peer_log_show_tables' ) ) {
		$GLOBALS['inkpress_peer_show_tables'] = 0;
		add_filter( 'query', function ( $query ) {
			if ( false !== stripos( $query, 'SHOW TABLES' ) ) {
				++$GLOBALS['inkpress_peer_show_tables'];
			}
			return $query;
		} );
		add_action( 'shutdown', function () {
			if ( $GLOBALS['inkpress_peer_show_tables'] > 0 ) {
				update_option( 'inkpress_peer_show_tables', (int) get_option( 'inkpress_peer_show_tables', 0 ) + $GLOBALS['inkpress_peer_show_tables'], false );
			}
		} );
	}
	if ( '1' === (string) get_option( 'inkpress_peer_translate' ) ) {
		add_filter( 'gettext', function ( $translation, $text, $domain ) {
			return 'inkpress-connector' === $domain ? '[xx] ' . $translation : $translation;
		}, 10, 3 );
	}
	if ( 'yoast' === $inkpress_peer_stub ) {
		add_action( 'wp_head', function () {
			$output = apply_filters( 'wpseo_json_ld_output', true, '' );
			if ( false === $output || array() === $output ) {
				return;
			}
			$graph = array( array( '@type' => 'Article', 'name' => 'yoast-stub' ) );
			foreach ( apply_filters( 'wpseo_schema_graph_pieces', array(), (object) array() ) as $piece ) {
				if ( $piece instanceof Yoast\WP\SEO\Generators\Schema\Abstract_Schema_Piece && $piece->is_needed() ) {
					$graph[] = $piece->generate();
				}
			}
			echo '<script type="application/ld+json" class="yoast-schema-graph">' . wp_json_encode( array( '@context' => 'https://schema.org', '@graph' => $graph ) ) . "</script>\n";
		}, 20 );
	}
	if ( 'rank_math' === $inkpress_peer_stub ) {
		add_action( 'wp_head', function () {
			if ( ! RankMath\Helper::is_module_active( 'rich-snippet' ) ) {
				return;
			}
			$data = apply_filters( 'rank_math/json_ld', array(), null );
			echo '<script type="application/ld+json" class="rank-math-schema">' . wp_json_encode( array( '@context' => 'https://schema.org', '@graph' => array_values( $data ) ) ) . "</script>\n";
		}, 20 );
	}
}
PHP
  cat >"$STATE/router.php" <<'PHP'
<?php
// Router for php -S: real files are served as is, everything else goes to index.php.
$root = rtrim( $_SERVER['DOCUMENT_ROOT'], '/' );
$path = urldecode( (string) parse_url( $_SERVER['REQUEST_URI'], PHP_URL_PATH ) );
if ( '/' !== $path && false === strpos( $path, '..' ) ) {
	$file = $root . $path;
	if ( is_file( $file ) || ( is_dir( $file ) && is_file( rtrim( $file, '/' ) . '/index.php' ) ) ) {
		return false;
	}
} elseif ( '/' === $path ) {
	return false;
}
$_SERVER['SCRIPT_NAME']     = '/index.php';
$_SERVER['PHP_SELF']        = '/index.php';
$_SERVER['SCRIPT_FILENAME'] = $root . '/index.php';
chdir( $root );
require $root . '/index.php';
PHP
  cat >"$STATE/wp-cli-boot.php" <<PHP
<?php
// Boots WordPress from the command line for this peer.
\$_SERVER['HTTP_HOST']   = '127.0.0.1:$PORT';
\$_SERVER['SERVER_NAME'] = '127.0.0.1';
\$_SERVER['SERVER_PORT'] = '$PORT';
\$_SERVER['REQUEST_URI'] = '/';
\$_SERVER['REQUEST_METHOD'] = 'GET';
\$_SERVER['REMOTE_ADDR'] = '127.0.0.1';
define( 'WP_USE_THEMES', false );
require '$SITE/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/plugin.php';
require_once ABSPATH . 'wp-admin/includes/user.php';
require_once ABSPATH . 'wp-admin/includes/taxonomy.php';
wp_set_current_user( 1 );
PHP
  cat >"$STATE/eval.php" <<PHP
<?php
require '$STATE/wp-cli-boot.php';
eval( \$argv[1] );
PHP
}

php_wp() { php -d display_errors=stderr -d memory_limit=256M "$@"; }

install_wordpress() {
  local out="$STATE/install-response.html"
  local code
  code="$(curl -sS -o "$out" -w '%{http_code}' --max-time 60 \
    --data-urlencode "weblog_title=Inkpress Test Peer" \
    --data-urlencode "user_name=$ADMIN_LOGIN" \
    --data-urlencode "admin_password=$ADMIN_PASSWORD" \
    --data-urlencode "admin_password2=$ADMIN_PASSWORD" \
    --data-urlencode "pw_weak=1" \
    --data-urlencode "admin_email=admin@example.test" \
    --data-urlencode "blog_public=0" \
    --data-urlencode "language=" \
    "$URL/wp-admin/install.php?step=2")" || { show_log "$STATE/web.log"; die "install request failed"; }
  grep -q 'Success!' "$out" || { show_log "$out"; show_log "$STATE/web.log"; die "WordPress install did not succeed (HTTP $code), see $out"; }
}

configure_wordpress() {
  rm -rf "$SITE/wp-content/plugins/inkpress-connector"
  cp -r "$PLUGIN_SRC" "$SITE/wp-content/plugins/inkpress-connector"
  cat >"$STATE/setup.php" <<'PHP'
<?php
require $argv[1];
[ , , $editor_login, $editor_pw, $plain_login, $plain_pw, $subscriber_login, $subscriber_pw, $role_admin_login, $role_admin_pw, $role_editor_login, $role_editor_pw ] = $argv;

global $wp_rewrite;
$wp_rewrite->set_permalink_structure( '/%postname%/' );
update_option( 'timezone_string', 'UTC' );
flush_rewrite_rules( false );

switch_theme( 'inkpress-peer' );

$r = activate_plugin( 'inkpress-connector/inkpress-connector.php' );
if ( is_wp_error( $r ) ) { fwrite( STDERR, 'activate_plugin: ' . $r->get_error_message() . "\n" ); exit( 1 ); }
if ( ! get_role( 'inkpress_editor' ) ) { fwrite( STDERR, "role inkpress_editor missing after activation\n" ); exit( 1 ); }

function peer_user( $login, $pw, $role ) {
	$id = wp_insert_user( array( 'user_login' => $login, 'user_pass' => $pw, 'user_email' => $login . '@example.test', 'role' => $role, 'display_name' => $login ) );
	if ( is_wp_error( $id ) ) { fwrite( STDERR, "user $login: " . $id->get_error_message() . "\n" ); exit( 1 ); }
	return $id;
}
$editor_id = peer_user( $editor_login, $editor_pw, 'inkpress_editor' );
peer_user( $plain_login, $plain_pw, 'author' );
peer_user( $subscriber_login, $subscriber_pw, 'subscriber' );
$role_admin_id = peer_user( $role_admin_login, $role_admin_pw, 'administrator' );
( new WP_User( $role_admin_id ) )->add_role( 'inkpress_editor' );
$role_editor_id = peer_user( $role_editor_login, $role_editor_pw, 'editor' );
( new WP_User( $role_editor_id ) )->add_role( 'inkpress_editor' );

function peer_app_password( $user_id ) {
	$app = WP_Application_Passwords::create_new_application_password( $user_id, array( 'name' => 'peer' ) );
	if ( is_wp_error( $app ) ) { fwrite( STDERR, 'app password: ' . $app->get_error_message() . "\n" ); exit( 1 ); }
	return $app[0];
}
$app_password            = peer_app_password( $editor_id );
$role_admin_app_password = peer_app_password( $role_admin_id );
$admin_app_password      = peer_app_password( 1 );

function peer_cat( $name, $parent = 0 ) {
	$r = wp_insert_term( $name, 'category', array( 'parent' => $parent ) );
	if ( is_wp_error( $r ) ) { fwrite( STDERR, "category $name: " . $r->get_error_message() . "\n" ); exit( 1 ); }
	return (int) $r['term_id'];
}
$news      = peer_cat( 'News' );
$guides    = peer_cat( 'Guides' );
$tutorials = peer_cat( 'Tutorials', $guides );

printf( "WP_EDITOR_USER_ID=%d\nWP_APP_PASSWORD=%s\nWP_ROLE_ADMIN_APP_PASSWORD=%s\nWP_ADMIN_APP_PASSWORD=%s\nWP_CATEGORY_UNCATEGORIZED_ID=%d\nWP_CATEGORY_NEWS_ID=%d\nWP_CATEGORY_GUIDES_ID=%d\nWP_CATEGORY_TUTORIALS_ID=%d\n",
	$editor_id, $app_password, $role_admin_app_password, $admin_app_password, (int) get_option( 'default_category' ), $news, $guides, $tutorials );
PHP
  php_wp "$STATE/setup.php" "$STATE/wp-cli-boot.php" "$EDITOR_LOGIN" "$EDITOR_PASSWORD" "$PLAIN_LOGIN" "$PLAIN_PASSWORD" \
    "$SUBSCRIBER_LOGIN" "$SUBSCRIBER_PASSWORD" "$ROLE_ADMIN_LOGIN" "$ROLE_ADMIN_PASSWORD" "$ROLE_EDITOR_LOGIN" "$ROLE_EDITOR_PASSWORD" \
    >"$STATE/setup.out" 2>"$STATE/setup.err" || { show_log "$STATE/setup.err"; die "WordPress setup (permalinks/plugin/users/categories) failed"; }
}

write_env() {
  {
    echo "WP_URL=$URL"
    echo "WP_LOGIN=$EDITOR_LOGIN"
    echo "WP_PASSWORD=$EDITOR_PASSWORD"
    echo "WP_ADMIN_LOGIN=$ADMIN_LOGIN"
    echo "WP_ADMIN_PASSWORD=$ADMIN_PASSWORD"
    echo "WP_PLAIN_LOGIN=$PLAIN_LOGIN"
    echo "WP_PLAIN_PASSWORD=$PLAIN_PASSWORD"
    echo "WP_SUBSCRIBER_LOGIN=$SUBSCRIBER_LOGIN"
    echo "WP_SUBSCRIBER_PASSWORD=$SUBSCRIBER_PASSWORD"
    echo "WP_ROLE_ADMIN_LOGIN=$ROLE_ADMIN_LOGIN"
    echo "WP_ROLE_ADMIN_PASSWORD=$ROLE_ADMIN_PASSWORD"
    echo "WP_ROLE_EDITOR_LOGIN=$ROLE_EDITOR_LOGIN"
    echo "WP_ROLE_EDITOR_PASSWORD=$ROLE_EDITOR_PASSWORD"
    cat "$STATE/setup.out"
    echo "WP_PEER_DIR=$STATE"
  } >"$STATE/env.tmp"
  mv "$STATE/env.tmp" "$STATE/env"
}

check_rest() {
  local body
  body="$(curl -sS --max-time 15 -u "$EDITOR_LOGIN:$EDITOR_PASSWORD" "$URL/wp-json/inkpress/v1/status")" \
    || die "REST check failed (curl)"
  case "$body" in
    *'"role_ok":true'*) ;;
    *) show_log "$STATE/web.log"; die "REST check failed: $body" ;;
  esac
}

cmd_up() {
  if [ -f "$STATE/env" ] && [ -f "$MARKER" ]; then
    if db_alive && web_alive; then
      log "already up at $URL"
      cat "$STATE/env"
      return 0
    fi
    log "state dir exists but not everything runs; restarting what is missing"
    # Same port as when installed (it is baked into wp-config / WP_HOME).
    start_db
    start_web
    check_rest
    cat "$STATE/env"
    return 0
  fi
  check_prereqs
  if [ -e "$STATE" ]; then
    [ -f "$MARKER" ] || die "$STATE exists and is not a peer state dir; remove it or set WP_PEER_DIR"
    log "removing incomplete state dir $STATE"
    cmd_down >/dev/null 2>&1 || true
  fi
  if port_open; then die "port $PORT is already in use (set WP_PEER_PORT)"; fi
  mkdir -p "$STATE"
  touch "$MARKER"
  local t0=$SECONDS
  start_db
  sql "CREATE DATABASE IF NOT EXISTS \`$DB_NAME\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
       CREATE USER IF NOT EXISTS '$DB_USER'@'localhost' IDENTIFIED BY '$DB_PASSWORD';
       GRANT ALL ON \`$DB_NAME\`.* TO '$DB_USER'@'localhost';" \
    || die "could not create database"
  write_site
  start_web
  install_wordpress
  configure_wordpress
  write_env
  check_rest
  log "up at $URL in $((SECONDS - t0)) s (state: $STATE)"
  cat "$STATE/env"
}

cmd_env() {
  [ -f "$STATE/env" ] || die "peer is not up (no $STATE/env)"
  cat "$STATE/env"
}

cmd_status() {
  if [ ! -f "$MARKER" ]; then echo "down"; return 0; fi
  echo "db:  $(db_alive && echo "running (pid $(read_pid "$DB_PIDFILE"))" || echo stopped)"
  echo "web: $(web_alive && echo "running (pid $(read_pid "$WEB_PIDFILE")) at $URL" || echo stopped)"
}

cmd_stop_web() {
  [ -f "$MARKER" ] || die "peer is not up"
  kill_group "$WEB_PIDFILE" "php web server" KILL
  wait_for "port $PORT closed" 10 bash -c "! (exec 3<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null" \
    || die "port $PORT still open after stopping the web server"
  log "web server stopped"
}

cmd_start_web() {
  if [ ! -f "$MARKER" ] || [ ! -d "$SITE" ]; then die "peer is not up; run: $0 up"; fi
  db_alive || start_db
  start_web
  log "web server started at $URL"
}

cmd_php_eval() {
  [ $# -ge 1 ] || die "usage: $0 php-eval 'PHP CODE;'"
  [ -f "$STATE/eval.php" ] || die "peer is not up"
  db_alive || die "database is not running"
  php_wp "$STATE/eval.php" "$1"
}

cmd_down() {
  if [ ! -e "$STATE" ]; then log "already down"; return 0; fi
  [ -f "$MARKER" ] || die "$STATE is not a peer state dir; not removing it"
  # The data is deleted right after, so no clean shutdown is needed.
  kill_group "$WEB_PIDFILE" "php web server" KILL
  kill_group "$DB_PIDFILE" "mariadb" KILL
  rm -rf "$STATE"
  log "down"
}

case "${1:-}" in
  install) cmd_install ;;
  up) cmd_up ;;
  env) cmd_env ;;
  status) cmd_status ;;
  stop-web) cmd_stop_web ;;
  start-web) cmd_start_web ;;
  php-eval) shift; cmd_php_eval "$@" ;;
  down) cmd_down ;;
  *) echo "usage: $0 {install|up|env|status|stop-web|start-web|php-eval CODE|down}" >&2; exit 2 ;;
esac
