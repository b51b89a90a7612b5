<?php
/**
 * HTTP Basic authentication for the Inkpress Editor user, on this plugin's REST routes only.
 *
 * Accepts the user's real password or an application password, from the standard
 * Authorization header or from X-Inkpress-Authorization (for hosts that strip
 * Authorization), only on real REST requests for inkpress/v1 routes. Everywhere else the
 * plugin does nothing and WordPress core decides (which takes only application passwords,
 * and only on API requests).
 *
 * Every check goes through wp_authenticate(), so the site's own `authenticate` and
 * `wp_login_failed` hooks (login limiters, 2FA policies) apply. Every failure (unknown
 * user, wrong password, a user without the role or with more power than it) gets the same
 * 401 body and takes at least FAILURE_FLOOR_US, so neither the answer nor its timing tells
 * which it was. Inkpress_Throttle refuses attempts after repeated failures with 429.
 *
 * @package InkpressConnector
 */

defined( 'ABSPATH' ) || exit;

/**
 * Authentication.
 */
final class Inkpress_Auth {

	/**
	 * Minimum duration of a failed login in microseconds: longer than any path through
	 * wp_authenticate (measured: 0.4-5 ms on WordPress 6.1), so that unknown users, wrong
	 * passwords and refused users take the same time.
	 */
	private const FAILURE_FLOOR_US = 200000;

	/**
	 * A password hash no password matches (of random bytes that were thrown away), checked
	 * for unknown users so that they cost a hash check like known ones.
	 */
	private const DUMMY_HASH = '$P$BwmFEcSqHVBQrP9906ahcbV4flNLCr/';

	/**
	 * Outcome of this request's credentials: null until looked at (or not this plugin's
	 * business), a user ID, 'failed' or 'throttled'.
	 *
	 * @var int|string|null
	 */
	private static $outcome = null;

	/**
	 * Seconds to send in Retry-After when throttled.
	 *
	 * @var int
	 */
	private static $retry_after = 0;

	/**
	 * Hooks.
	 */
	public static function init(): void {
		// Core: auth cookie at 10, logged-in cookie and application passwords at 20.
		add_filter( 'determine_current_user', array( __CLASS__, 'determine_current_user' ), 15 );
		// Core: application password errors at 90, cookie check at 100.
		add_filter( 'rest_authentication_errors', array( __CLASS__, 'rest_authentication_errors' ), 5 );
		add_filter( 'rest_post_dispatch', array( __CLASS__, 'add_retry_after' ), 10, 1 );
	}

	/**
	 * The one answer to every failed login.
	 */
	public static function login_failed_error(): WP_Error {
		return new WP_Error(
			'inkpress_login_failed',
			__( 'Login failed: check the user name, the password, and that the user has only the Inkpress Editor role.', 'inkpress-connector' ),
			array( 'status' => 401 )
		);
	}

	/**
	 * Whether this is a real REST request for a route of this plugin. Core defines
	 * REST_REQUEST only when the front controller serves the REST API (a /wp-json/ URL, or
	 * rest_route on index.php), and only then; a user determined earlier in the request was
	 * anonymous, and WP_REST_Server::serve_request() clears it so that this runs again.
	 */
	public static function is_inkpress_rest_request(): bool {
		if ( ! defined( 'REST_REQUEST' ) || ! REST_REQUEST || ! isset( $GLOBALS['wp'] ) || ! $GLOBALS['wp'] instanceof WP ) {
			return false;
		}
		// The very value rest_api_loaded() dispatches on.
		$route = $GLOBALS['wp']->query_vars['rest_route'] ?? null;
		if ( ! is_string( $route ) ) {
			return false;
		}
		$route = '/' . ltrim( $route, '/' );
		// The probe is answered to anyone, and its headers are test values, never a login.
		if ( Inkpress_Probe::is_probe_route( $route ) ) {
			return false;
		}
		// Route patterns match case-insensitively.
		return 0 === stripos( rtrim( $route, '/' ) . '/', '/' . INKPRESS_CONNECTOR_NAMESPACE . '/' );
	}

	/**
	 * Credentials supplied with the request.
	 *
	 * @return array{0:string,1:string}|null [login, password]; null if none supplied.
	 */
	public static function credentials(): ?array {
		// phpcs:disable WordPress.Security.ValidatedSanitizedInput
		if ( ! empty( $_SERVER['HTTP_X_INKPRESS_AUTHORIZATION'] ) ) {
			// A malformed custom header is still an attempt to log in: fail it.
			return self::parse_basic( (string) $_SERVER['HTTP_X_INKPRESS_AUTHORIZATION'] ) ?? array( '', '' );
		}
		if ( isset( $_SERVER['PHP_AUTH_USER'], $_SERVER['PHP_AUTH_PW'] ) ) {
			// WordPress adds slashes to $_SERVER (wp_magic_quotes): the values as sent.
			return array( (string) wp_unslash( $_SERVER['PHP_AUTH_USER'] ), (string) wp_unslash( $_SERVER['PHP_AUTH_PW'] ) );
		}
		foreach ( array( 'HTTP_AUTHORIZATION', 'REDIRECT_HTTP_AUTHORIZATION' ) as $key ) {
			if ( ! empty( $_SERVER[ $key ] ) ) {
				$parsed = self::parse_basic( (string) $_SERVER[ $key ] );
				if ( null !== $parsed ) {
					return $parsed;
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
	 * Filter determine_current_user.
	 *
	 * @param int|false $user_id User ID found by earlier callbacks.
	 * @return int|false
	 */
	public static function determine_current_user( $user_id ) {
		if ( ! empty( $user_id ) || ! self::is_inkpress_rest_request() ) {
			return $user_id;
		}
		$outcome = self::resolve();
		if ( is_int( $outcome ) ) {
			return $outcome;
		}
		if ( null !== $outcome ) {
			// Failed or throttled: core must not check the same credentials again.
			remove_filter( 'determine_current_user', 'wp_validate_application_password', 20 );
			return false;
		}
		return $user_id;
	}

	/**
	 * Checks the supplied credentials, once per request.
	 *
	 * @return int|string|null See $outcome.
	 */
	private static function resolve() {
		static $done = false;
		if ( $done ) {
			return self::$outcome;
		}
		$done        = true;
		$credentials = self::credentials();
		if ( null === $credentials ) {
			return null;
		}
		list( $login, $password ) = $credentials;

		$throttle = new Inkpress_Throttle( $login, Inkpress_Throttle::client_address() );
		if ( ! $throttle->lock() ) {
			// A parallel attempt for this user and address is still running.
			self::$retry_after = 5;
			self::$outcome     = 'throttled';
			return self::$outcome;
		}
		try {
			$retry_after = $throttle->retry_after( time() );
			if ( $retry_after > 0 ) {
				self::$retry_after = $retry_after;
				self::$outcome     = 'throttled';
				return self::$outcome;
			}
			$started = microtime( true );
			$user    = self::authenticate( $login, $password );
			if ( null !== $user ) {
				$throttle->clear();
				self::$outcome = (int) $user->ID;
				return self::$outcome;
			}
			$throttle->record_failure( time() );
			$elapsed_us = (int) ( ( microtime( true ) - $started ) * 1000000 );
			if ( $elapsed_us < self::FAILURE_FLOOR_US ) {
				usleep( self::FAILURE_FLOOR_US - $elapsed_us );
			}
			self::$outcome = 'failed';
			return self::$outcome;
		} finally {
			$throttle->unlock();
		}
	}

	/**
	 * The user, if the credentials log in (through wp_authenticate) a user Inkpress may
	 * publish as; null otherwise.
	 *
	 * @param string $login    User name or e-mail.
	 * @param string $password Real or application password.
	 */
	private static function authenticate( string $login, string $password ): ?WP_User {
		// wp_authenticate() reports failures to wp_login_failed itself, except empty fields.
		$user = wp_authenticate( $login, self::password_as_stored( $login, $password ) );
		if ( is_wp_error( $user ) ) {
			if ( in_array( $user->get_error_code(), array( 'invalid_username', 'invalid_email' ), true ) ) {
				wp_check_password( $password, self::DUMMY_HASH );
			}
			return null;
		}
		if ( ! $user instanceof WP_User || ! Inkpress_Role::may_publish( $user ) ) {
			// A right password of a user Inkpress refuses is a failed login for the site's
			// own limiters too (and never a hint that the password was right).
			do_action(
				'wp_login_failed',
				sanitize_user( $login ),
				new WP_Error( 'inkpress_user_refused', __( 'This user may not log in through Inkpress Connector.', 'inkpress-connector' ) )
			);
			return null;
		}
		return $user;
	}

	/**
	 * The password in the form the user's hash was made of. WordPress hashes a password set in
	 * its forms (profile, Add New, reset, REST API) as posted, with the slashes wp_magic_quotes()
	 * adds before a quote or backslash, and wp-login.php checks it so; a password set from PHP
	 * (wp_set_password(), WP-CLI, an importer) is hashed as it is. Inkpress sends the password as
	 * typed: with a quote or backslash in it, the form that matches the user's hash is the one
	 * checked, so such a password works wherever it was set, through one wp_authenticate() call
	 * (the site's login limiters see one attempt). Application passwords have neither character.
	 *
	 * @param string $login    User name or e-mail.
	 * @param string $password Password as sent.
	 */
	private static function password_as_stored( string $login, string $password ): string {
		$slashed = wp_slash( $password );
		if ( $slashed === $password ) {
			return $password;
		}
		$user = get_user_by( 'login', $login );
		if ( ! $user && is_email( $login ) ) {
			$user = get_user_by( 'email', $login );
		}
		if ( ! $user instanceof WP_User || wp_check_password( $password, $user->user_pass, $user->ID ) ) {
			return $password;
		}
		return wp_check_password( $slashed, $user->user_pass, $user->ID ) ? $slashed : $password;
	}

	/**
	 * Filter rest_authentication_errors.
	 *
	 * @param WP_Error|null|true $result Earlier result.
	 * @return WP_Error|null|true
	 */
	public static function rest_authentication_errors( $result ) {
		if ( ! empty( $result ) || ! self::is_inkpress_rest_request() ) {
			return $result;
		}
		// Make sure the credentials were looked at (the current user is resolved lazily).
		wp_get_current_user();
		if ( 'throttled' === self::$outcome ) {
			return new WP_Error(
				'inkpress_throttled',
				__( 'Too many failed logins for this user from this address; try again later.', 'inkpress-connector' ),
				array(
					'status'      => 429,
					'retry_after' => self::$retry_after,
				)
			);
		}
		if ( 'failed' === self::$outcome ) {
			return self::login_failed_error();
		}
		if ( is_int( self::$outcome ) ) {
			return true;
		}
		return $result;
	}

	/**
	 * Filter rest_post_dispatch: Retry-After on the throttled answer.
	 *
	 * @param WP_HTTP_Response $response Response.
	 * @return WP_HTTP_Response
	 */
	public static function add_retry_after( $response ) {
		if ( 'throttled' === self::$outcome && $response instanceof WP_HTTP_Response && 429 === $response->get_status() ) {
			$response->header( 'Retry-After', (string) self::$retry_after );
		}
		return $response;
	}
}
