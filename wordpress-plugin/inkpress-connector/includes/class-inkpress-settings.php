<?php
/**
 * Settings > Inkpress Connector: for the site owner (manage_options), which users hold the
 * Inkpress Editor role and whether Inkpress can log in as them, naming the capabilities
 * that make a user too powerful. Logins refused for that reason look like any failed
 * login from outside (on purpose), so this page is where the owner learns why.
 *
 * @package InkpressConnector
 */

defined( 'ABSPATH' ) || exit;

/**
 * Settings page and admin notice.
 */
final class Inkpress_Settings {

	private const PAGE         = 'inkpress-connector';
	private const RESET_ACTION = 'inkpress_connector_reset_throttle';

	/**
	 * Hooks.
	 */
	public static function init(): void {
		add_action( 'admin_menu', array( __CLASS__, 'add_page' ) );
		add_action( 'admin_notices', array( __CLASS__, 'notice' ) );
		add_action( 'admin_post_' . self::RESET_ACTION, array( __CLASS__, 'reset_throttle' ) );
		add_filter( 'plugin_action_links_' . plugin_basename( INKPRESS_CONNECTOR_FILE ), array( __CLASS__, 'action_links' ) );
	}

	/**
	 * Adds the page under Settings.
	 */
	public static function add_page(): void {
		add_options_page( __( 'Inkpress Connector', 'inkpress-connector' ), __( 'Inkpress Connector', 'inkpress-connector' ), 'manage_options', self::PAGE, array( __CLASS__, 'render' ) );
	}

	/**
	 * "Settings" link on the Plugins screen.
	 *
	 * @param string[] $links Links.
	 * @return string[]
	 */
	public static function action_links( $links ): array {
		$links   = (array) $links;
		$links[] = '<a href="' . esc_url( self::page_url() ) . '">' . esc_html__( 'Settings', 'inkpress-connector' ) . '</a>';
		return $links;
	}

	/**
	 * Users holding the role, each with the too-powerful capabilities it holds.
	 *
	 * @return array<int,array{user:WP_User,excess:string[]}>
	 */
	public static function role_users(): array {
		$out   = array();
		$users = get_users(
			array(
				'role'   => INKPRESS_CONNECTOR_ROLE,
				'fields' => 'all',
				'number' => 100,
			)
		);
		foreach ( $users as $user ) {
			$out[] = array(
				'user'   => $user,
				'excess' => Inkpress_Role::excess_capabilities( $user ),
			);
		}
		return $out;
	}

	/**
	 * Notice on the dashboard, Plugins and Users screens while a role user is too powerful.
	 */
	public static function notice(): void {
		if ( ! current_user_can( 'manage_options' ) ) {
			return;
		}
		$screen = function_exists( 'get_current_screen' ) ? get_current_screen() : null;
		if ( null === $screen || ! in_array( $screen->id, array( 'dashboard', 'plugins', 'users' ), true ) ) {
			return;
		}
		$too_powerful = array_filter(
			self::role_users(),
			static function ( array $entry ): bool {
				return array() !== $entry['excess'];
			}
		);
		if ( array() === $too_powerful ) {
			return;
		}
		$names = array_map(
			static function ( array $entry ): string {
				return $entry['user']->user_login;
			},
			$too_powerful
		);
		printf(
			'<div class="notice notice-warning"><p>%s <a href="%s">%s</a></p></div>',
			esc_html(
				sprintf(
					/* translators: %s: user logins, comma-separated. */
					_n(
						'Inkpress will not log in as %s: this user has more power than the Inkpress Editor role.',
						'Inkpress will not log in as %s: these users have more power than the Inkpress Editor role.',
						count( $names ),
						'inkpress-connector'
					),
					implode( ', ', $names )
				)
			),
			esc_url( self::page_url() ),
			esc_html__( 'See Settings > Inkpress Connector.', 'inkpress-connector' )
		);
	}

	/**
	 * The page.
	 */
	public static function render(): void {
		if ( ! current_user_can( 'manage_options' ) ) {
			return;
		}
		$entries = self::role_users();
		echo '<div class="wrap"><h1>' . esc_html__( 'Inkpress Connector', 'inkpress-connector' ) . '</h1>';
		// phpcs:ignore WordPress.Security.NonceVerification.Recommended
		if ( isset( $_GET['inkpress_reset'] ) ) {
			echo '<div class="notice notice-success"><p>' . esc_html__( 'Failed-login records cleared.', 'inkpress-connector' ) . '</p></div>';
		}
		echo '<p>' . esc_html__( 'Inkpress publishes as a user holding the Inkpress Editor role and nothing more powerful.', 'inkpress-connector' ) . ' ';
		echo esc_html(
			sprintf(
				/* translators: %s: the plugin's REST route prefix. */
				__( 'It logs in with that user’s password or an application password, only on the plugin’s own REST routes (%s).', 'inkpress-connector' ),
				'/wp-json/' . INKPRESS_CONNECTOR_NAMESPACE . '/'
			)
		) . '</p>';
		echo '<p>' . esc_html__( 'Capabilities of the role:', 'inkpress-connector' ) . ' <code>' . implode( '</code>, <code>', array_map( 'esc_html', array_keys( Inkpress_Role::CAPABILITIES ) ) ) . '</code>.</p>';

		echo '<h2>' . esc_html__( 'Inkpress Editor users', 'inkpress-connector' ) . '</h2>';
		if ( array() === $entries ) {
			echo '<p>' . esc_html__( 'No user holds the role yet: create one under Users > Add New with the role Inkpress Editor, and give its login to Inkpress.', 'inkpress-connector' ) . '</p>';
		} else {
			echo '<table class="widefat striped"><thead><tr><th>' . esc_html__( 'User', 'inkpress-connector' ) . '</th><th>' . esc_html__( 'Roles', 'inkpress-connector' ) . '</th><th>' . esc_html__( 'Can Inkpress log in?', 'inkpress-connector' ) . '</th></tr></thead><tbody>';
			foreach ( $entries as $entry ) {
				$user = $entry['user'];
				echo '<tr><td>' . esc_html( $user->user_login ) . '</td><td>' . esc_html( implode( ', ', (array) $user->roles ) ) . '</td><td>';
				if ( array() === $entry['excess'] ) {
					echo esc_html__( 'Yes', 'inkpress-connector' );
				} else {
					echo '<strong>' . esc_html__( 'No: this user has more power than the role', 'inkpress-connector' ) . '</strong> (' . esc_html( implode( ', ', $entry['excess'] ) ) . '). ';
					echo esc_html__( 'Inkpress refuses it like a wrong password. Remove the other roles or capabilities, or use a dedicated user with only the Inkpress Editor role.', 'inkpress-connector' );
				}
				echo '</td></tr>';
			}
			echo '</tbody></table>';
		}

		echo '<h2>' . esc_html__( 'Login throttle', 'inkpress-connector' ) . '</h2>';
		echo '<p>' . esc_html(
			sprintf(
				/* translators: 1: failed logins, 2: minutes. */
				__( 'After %1$d failed logins for one user name from one address within %2$d minutes, further attempts for that user name from that address are refused for a while (HTTP 429), whatever the password. Other addresses are not affected.', 'inkpress-connector' ),
				(int) Inkpress_Throttle::MAX_FAILURES,
				(int) ( Inkpress_Throttle::WINDOW_S / 60 )
			)
		) . '</p>';
		echo '<form method="post" action="' . esc_url( admin_url( 'admin-post.php' ) ) . '">';
		echo '<input type="hidden" name="action" value="' . esc_attr( self::RESET_ACTION ) . '">';
		wp_nonce_field( self::RESET_ACTION );
		submit_button( __( 'Clear failed-login records', 'inkpress-connector' ), 'secondary', 'submit', false );
		echo '</form></div>';
	}

	/**
	 * admin-post handler of the "Clear failed-login records" button.
	 */
	public static function reset_throttle(): void {
		if ( ! current_user_can( 'manage_options' ) ) {
			wp_die( esc_html__( 'Sorry, you are not allowed to do that.', 'inkpress-connector' ), 403 );
		}
		check_admin_referer( self::RESET_ACTION );
		Inkpress_Throttle::reset_all();
		wp_safe_redirect( add_query_arg( 'inkpress_reset', '1', self::page_url() ) );
		exit;
	}

	/**
	 * URL of the page.
	 */
	private static function page_url(): string {
		return admin_url( 'options-general.php?page=' . self::PAGE );
	}
}
