<?php
/**
 * GET inkpress/v1/probe: what Inkpress's connection doctor needs to know before it logs in,
 * answered to anyone: the plugin's version, and which of the two headers that can carry the
 * login reached PHP (a host or proxy that strips Authorization is the most common reason a site
 * will not connect). It says whether a header arrived, never what it held, and it is no login:
 * the plugin's authentication ignores this route (Inkpress_Auth::is_inkpress_rest_request), so
 * the doctor's test values never count as failed logins.
 *
 * @package InkpressConnector
 */

defined( 'ABSPATH' ) || exit;

/**
 * The probe route.
 */
final class Inkpress_Probe {

	public const ROUTE = '/probe';

	/**
	 * Hooks.
	 */
	public static function init(): void {
		add_action( 'rest_api_init', array( __CLASS__, 'register_route' ) );
	}

	/**
	 * Route.
	 */
	public static function register_route(): void {
		register_rest_route(
			INKPRESS_CONNECTOR_NAMESPACE,
			self::ROUTE,
			array(
				'methods'             => WP_REST_Server::READABLE,
				'callback'            => array( __CLASS__, 'get_probe' ),
				'permission_callback' => '__return_true',
			)
		);
	}

	/**
	 * Whether a REST route (as rest_api_loaded() dispatches it) is this one.
	 *
	 * @param string $route Route, with or without its leading slash.
	 */
	public static function is_probe_route( string $route ): bool {
		$route = '/' . trim( $route, '/' );
		return 0 === strcasecmp( $route, '/' . INKPRESS_CONNECTOR_NAMESPACE . self::ROUTE );
	}

	/**
	 * Which login headers reached PHP (present and not empty); never their values.
	 *
	 * @return array{authorization:bool,x_inkpress_authorization:bool}
	 */
	public static function headers_received(): array {
		// phpcs:disable WordPress.Security.ValidatedSanitizedInput
		$authorization = ! empty( $_SERVER['HTTP_AUTHORIZATION'] )
			|| ! empty( $_SERVER['REDIRECT_HTTP_AUTHORIZATION'] )
			|| isset( $_SERVER['PHP_AUTH_USER'] );
		$custom        = ! empty( $_SERVER['HTTP_X_INKPRESS_AUTHORIZATION'] );
		// phpcs:enable
		return array(
			'authorization'            => $authorization,
			'x_inkpress_authorization' => $custom,
		);
	}

	/**
	 * GET probe.
	 */
	public static function get_probe(): WP_REST_Response {
		$response = new WP_REST_Response(
			array(
				'plugin_version' => INKPRESS_CONNECTOR_VERSION,
				'auth_headers'   => self::headers_received(),
			),
			200
		);
		$response->header( 'Cache-Control', 'no-store' );
		return $response;
	}
}
