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
		add_options_page( 'Inkpress Connector', 'Inkpress Connector', 'manage_options', self::PAGE, array( __CLASS__, 'render' ) );
	}

	/**
	 * "Settings" link on the Plugins screen.
	 *
	 * @param string[] $links Links.
	 * @return string[]
	 */
	public static function action_links( $links ): array {
		$links   = (array) $links;
		$links[] = '<a href="' . esc_url( self::page_url() ) . '">Settings</a>';
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
					'Inkpress will not log in as %s: %s more power than the Inkpress Editor role.',
					implode( ', ', $names ),
					1 === count( $names ) ? 'this user has' : 'these users have'
				)
			),
			esc_url( self::page_url() ),
			esc_html( 'See Settings > Inkpress Connector.' )
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
		echo '<div class="wrap"><h1>Inkpress Connector</h1>';
		// phpcs:ignore WordPress.Security.NonceVerification.Recommended
		if ( isset( $_GET['inkpress_reset'] ) ) {
			echo '<div class="notice notice-success"><p>Failed-login records cleared.</p></div>';
		}
		echo '<p>Inkpress publishes as a user holding the <strong>Inkpress Editor</strong> role and nothing more powerful. ';
		echo 'It logs in with that user&#8217;s password or an application password, only on the plugin&#8217;s own REST routes (<code>/wp-json/' . esc_html( INKPRESS_CONNECTOR_NAMESPACE ) . '/</code>).</p>';
		echo '<p>Capabilities of the role: <code>' . implode( '</code>, <code>', array_map( 'esc_html', array_keys( Inkpress_Role::CAPABILITIES ) ) ) . '</code>.</p>';

		echo '<h2>Inkpress Editor users</h2>';
		if ( array() === $entries ) {
			echo '<p>No user holds the role yet: create one under Users &gt; Add New with the role Inkpress Editor, and give its login to Inkpress.</p>';
		} else {
			echo '<table class="widefat striped"><thead><tr><th>User</th><th>Roles</th><th>Can Inkpress log in?</th></tr></thead><tbody>';
			foreach ( $entries as $entry ) {
				$user = $entry['user'];
				echo '<tr><td>' . esc_html( $user->user_login ) . '</td><td>' . esc_html( implode( ', ', (array) $user->roles ) ) . '</td><td>';
				if ( array() === $entry['excess'] ) {
					echo 'Yes';
				} else {
					echo '<strong>No: this user has more power than the role</strong> (' . esc_html( implode( ', ', $entry['excess'] ) ) . '). ';
					echo 'Inkpress refuses it like a wrong password. Remove the other roles or capabilities, or use a dedicated user with only the Inkpress Editor role.';
				}
				echo '</td></tr>';
			}
			echo '</tbody></table>';
		}

		echo '<h2>Login throttle</h2>';
		printf(
			'<p>After %d failed logins for one user name from one address within %d minutes, further attempts for that user name from that address are refused for a while (HTTP 429), whatever the password. Other addresses are not affected.</p>',
			(int) Inkpress_Throttle::MAX_FAILURES,
			(int) ( Inkpress_Throttle::WINDOW_S / 60 )
		);
		echo '<form method="post" action="' . esc_url( admin_url( 'admin-post.php' ) ) . '">';
		echo '<input type="hidden" name="action" value="' . esc_attr( self::RESET_ACTION ) . '">';
		wp_nonce_field( self::RESET_ACTION );
		submit_button( 'Clear failed-login records', 'secondary', 'submit', false );
		echo '</form></div>';
	}

	/**
	 * admin-post handler of the "Clear failed-login records" button.
	 */
	public static function reset_throttle(): void {
		if ( ! current_user_can( 'manage_options' ) ) {
			wp_die( 'Sorry, you are not allowed to do that.', 403 );
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
