<?php
/**
 * HTTP Basic authentication for the Inkpress Editor user on REST requests.
 *
 * Accepts the user's real password or an application password, from the standard
 * Authorization header or from X-Inkpress-Authorization (for hosts that strip
 * Authorization). Only users holding the inkpress_editor role are logged in by this
 * plugin; anyone else is left to WordPress core.
 *
 * @package InkpressConnector
 */

defined( 'ABSPATH' ) || exit;

/**
 * Authentication.
 */
final class Inkpress_Auth {

	/**
	 * Error to report from rest_authentication_errors, if our login failed.
	 *
	 * @var WP_Error|null
	 */
	private static $error = null;

	/**
	 * True once this plugin authenticated the request.
	 *
	 * @var bool
	 */
	private static $authenticated = false;

	/**
	 * Hooks.
	 */
	public static function init(): void {
		// Core: auth cookie at 10, logged-in cookie and application passwords at 20.
		add_filter( 'determine_current_user', array( __CLASS__, 'determine_current_user' ), 15 );
		// Core: application password errors at 90, cookie check at 100.
		add_filter( 'rest_authentication_errors', array( __CLASS__, 'rest_authentication_errors' ), 5 );
	}

	/**
	 * Whether the current request is a REST request, judged from the URL, since
	 * REST_REQUEST is not defined yet when the current user is determined.
	 */
	public static function is_rest_url(): bool {
		if ( defined( 'REST_REQUEST' ) && REST_REQUEST ) {
			return true;
		}
		if ( isset( $_GET['rest_route'] ) ) { // phpcs:ignore WordPress.Security.NonceVerification.Recommended
			return true;
		}
		return null !== self::rest_path_from_uri();
	}

	/**
	 * The REST route of the request ("/inkpress/v1/status"), or null if not a REST URL.
	 */
	public static function rest_route(): ?string {
		if ( isset( $_GET['rest_route'] ) && is_string( $_GET['rest_route'] ) ) { // phpcs:ignore WordPress.Security.NonceVerification.Recommended
			return '/' . ltrim( wp_unslash( $_GET['rest_route'] ), '/' ); // phpcs:ignore WordPress.Security.NonceVerification.Recommended,WordPress.Security.ValidatedSanitizedInput.InputNotSanitized
		}
		return self::rest_path_from_uri();
	}

	/**
	 * Route part of a pretty REST URL (home path + [index.php/] + wp-json/...).
	 */
	private static function rest_path_from_uri(): ?string {
		if ( empty( $_SERVER['REQUEST_URI'] ) || ! function_exists( 'rest_get_url_prefix' ) ) {
			return null;
		}
		$path = (string) wp_parse_url( wp_unslash( $_SERVER['REQUEST_URI'] ), PHP_URL_PATH ); // phpcs:ignore WordPress.Security.ValidatedSanitizedInput.InputNotSanitized
		$home = (string) wp_parse_url( home_url( '/' ), PHP_URL_PATH );
		$home = '/' . trim( $home, '/' );
		$home = '/' === $home ? '' : $home;
		$re   = '#^' . preg_quote( $home, '#' ) . '/(?:index\.php/)?' . preg_quote( rest_get_url_prefix(), '#' ) . '(/.*)?$#';
		if ( ! preg_match( $re, rawurldecode( $path ), $m ) ) {
			return null;
		}
		return isset( $m[1] ) && '' !== $m[1] ? $m[1] : '/';
	}

	/**
	 * Whether the request targets this plugin's namespace.
	 */
	public static function is_inkpress_route(): bool {
		$route = self::rest_route();
		return null !== $route && 0 === strpos( $route . '/', '/' . INKPRESS_CONNECTOR_NAMESPACE . '/' );
	}

	/**
	 * Credentials supplied with the request.
	 *
	 * @return array{0:string,1:string,2:string}|null [login, password, source] where
	 *         source is "x-inkpress" or "authorization"; null if none supplied.
	 */
	public static function credentials(): ?array {
		// phpcs:disable WordPress.Security.ValidatedSanitizedInput
		if ( ! empty( $_SERVER['HTTP_X_INKPRESS_AUTHORIZATION'] ) ) {
			$parsed = self::parse_basic( (string) $_SERVER['HTTP_X_INKPRESS_AUTHORIZATION'] );
			// A malformed custom header is still an attempt to log in: fail it.
			return null === $parsed ? array( '', '', 'x-inkpress' ) : array( $parsed[0], $parsed[1], 'x-inkpress' );
		}
		if ( isset( $_SERVER['PHP_AUTH_USER'], $_SERVER['PHP_AUTH_PW'] ) ) {
			return array( (string) $_SERVER['PHP_AUTH_USER'], (string) $_SERVER['PHP_AUTH_PW'], 'authorization' );
		}
		foreach ( array( 'HTTP_AUTHORIZATION', 'REDIRECT_HTTP_AUTHORIZATION' ) as $key ) {
			if ( ! empty( $_SERVER[ $key ] ) ) {
				$parsed = self::parse_basic( (string) $_SERVER[ $key ] );
				if ( null !== $parsed ) {
					return array( $parsed[0], $parsed[1], 'authorization' );
				}
			}
		}
		// phpcs:enable
		return null;
	}

	/**
	 * Parses "Basic base64(login:password)".
	 *
	 * @param string $header Header value.
	 * @return array{0:string,1:string}|null
	 */
	private static function parse_basic( string $header ): ?array {
		if ( ! preg_match( '/^\s*Basic\s+([A-Za-z0-9+\/=]+)\s*$/i', $header, $m ) ) {
			return null;
		}
		$decoded = base64_decode( $m[1], true ); // phpcs:ignore WordPress.PHP.DiscouragedPHPFunctions.obfuscation_base64_decode
		if ( false === $decoded || false === strpos( $decoded, ':' ) ) {
			return null;
		}
		list( $login, $password ) = explode( ':', $decoded, 2 );
		return array( $login, $password );
	}

	/**
	 * Filter determine_current_user. Core runs this filter a second time from
	 * WP_REST_Server::serve_request() when no user was found; the outcome of the first
	 * run is reused so credentials are checked (and failures logged) only once.
	 *
	 * @param int|false $user_id User ID found by earlier callbacks.
	 * @return int|false
	 */
	public static function determine_current_user( $user_id ) {
		if ( ! empty( $user_id ) ) {
			return $user_id;
		}
		$resolved = self::resolve();
		return null === $resolved ? $user_id : $resolved;
	}

	/**
	 * Checks the supplied credentials once per request.
	 *
	 * @return int|false|null User ID on success, false when this plugin rejected the
	 *                        request, null when it is none of this plugin's business.
	 */
	private static function resolve() {
		static $result = null;
		static $done   = false;
		if ( $done ) {
			return $result;
		}
		$done = true;

		if ( ! self::is_rest_url() ) {
			return null;
		}
		$credentials = self::credentials();
		if ( null === $credentials ) {
			return null;
		}
		list( $login, $password, $source ) = $credentials;

		$user = null;
		if ( '' !== $login && '' !== $password ) {
			// Let application passwords work too: REST_REQUEST is not defined yet.
			add_filter( 'application_password_is_api_request', '__return_true', 999 );
			try {
				$user = wp_authenticate( $login, $password );
			} finally {
				remove_filter( 'application_password_is_api_request', '__return_true', 999 );
			}
		}

		if ( $user instanceof WP_User && Inkpress_Role::user_has_role( $user ) ) {
			self::$authenticated = true;
			$result               = (int) $user->ID;
			return $result;
		}

		// Not ours. For other REST routes with the standard header, leave the request to
		// core exactly as without this plugin (core accepts only application passwords and
		// answers 401 itself when they are wrong).
		if ( 'authorization' === $source && ! self::is_inkpress_route() ) {
			return null;
		}

		if ( $user instanceof WP_User ) {
			self::$error = new WP_Error(
				'inkpress_missing_role',
				'This user does not have the Inkpress Editor role.',
				array( 'status' => 403 )
			);
		} else {
			self::$error = new WP_Error(
				'inkpress_invalid_login',
				'Unknown user name or wrong password.',
				array( 'status' => 401 )
			);
		}
		// Do not let core log the same credentials in afterwards.
		remove_filter( 'determine_current_user', 'wp_validate_application_password', 20 );
		remove_filter( 'determine_current_user', 'wp_validate_logged_in_cookie', 20 );
		$result = false;
		return $result;
	}

	/**
	 * Filter rest_authentication_errors.
	 *
	 * @param WP_Error|null|true $result Earlier result.
	 * @return WP_Error|null|true
	 */
	public static function rest_authentication_errors( $result ) {
		if ( ! empty( $result ) ) {
			return $result;
		}
		self::resolve();
		if ( null !== self::$error ) {
			return self::$error;
		}
		if ( self::$authenticated ) {
			return true;
		}
		return $result;
	}
}
