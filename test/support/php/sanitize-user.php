<?php
/**
 * What the plugin's login throttle names a login: mb_strtolower( sanitize_user( $login ) ), with
 * WordPress's own formatting.php (Debian's WordPress, WP_SRC or /usr/share/wordpress) for the
 * locale given as the first argument. Reads a JSON list of logins on stdin, writes the names.
 */
$wp_src = getenv( 'WP_SRC' ) ?: '/usr/share/wordpress';
define( 'ABSPATH', $wp_src . '/' );
$GLOBALS['inkpress_test_locale'] = $argv[1] ?? 'en_US';
function get_locale() {
	return $GLOBALS['inkpress_test_locale'];
}
function mbstring_binary_safe_encoding() {}
function reset_mbstring_encoding() {}
require ABSPATH . 'wp-includes/plugin.php';
require ABSPATH . 'wp-includes/formatting.php';
$names = array();
foreach ( json_decode( stream_get_contents( STDIN ), true ) as $login ) {
	$names[] = mb_strtolower( sanitize_user( $login ), 'UTF-8' );
}
echo json_encode( $names, JSON_UNESCAPED_UNICODE | JSON_INVALID_UTF8_SUBSTITUTE );
