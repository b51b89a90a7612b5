<?php
/**
 * The plugin's own login throttle: after MAX_FAILURES failed logins for one user name from
 * one address within WINDOW_S seconds, further attempts for that user name from that
 * address are refused without checking the password until the oldest failure is older
 * than the window. Per user name AND address, so that failures from elsewhere never lock
 * the Inkpress user out.
 *
 * @package InkpressConnector
 */

defined( 'ABSPATH' ) || exit;

/**
 * Failure records of one user name and address, kept in a transient whose name is a keyed
 * hash of both (no user names or addresses stored in clear). Callers hold lock() while they
 * check, authenticate and record, so parallel attempts cannot slip past the count.
 */
final class Inkpress_Throttle {

	public const MAX_FAILURES = 5;
	public const WINDOW_S     = 900;

	private const PREFIX      = 'inkpress_login_';
	private const LOCK_WAIT_S = 5;

	/**
	 * Transient (and lock) name.
	 *
	 * @var string
	 */
	private $name;

	/**
	 * Whether this object holds the lock.
	 *
	 * @var bool
	 */
	private $locked = false;

	/**
	 * Throttle for a user name as given to wp_authenticate, from an address.
	 *
	 * @param string $login   User name or e-mail as sent.
	 * @param string $address Client address (see client_address()).
	 */
	public function __construct( string $login, string $address ) {
		// Same normalisation as wp_authenticate + MySQL's case-insensitive lookup, so that
		// spelling variants of one name share its failures.
		$login      = mb_strtolower( sanitize_user( $login ), 'UTF-8' );
		$this->name = self::PREFIX . wp_hash( get_current_blog_id() . '|' . $login . '|' . $address );
	}

	/**
	 * Takes the lock of this user name and address (waits up to LOCK_WAIT_S for a parallel
	 * attempt to finish).
	 */
	public function lock(): bool {
		global $wpdb;
		$got          = $wpdb->get_var( $wpdb->prepare( 'SELECT GET_LOCK(%s, %d)', $this->name, self::LOCK_WAIT_S ) );
		$this->locked = '1' === (string) $got;
		return $this->locked;
	}

	/**
	 * Releases the lock, if held.
	 */
	public function unlock(): void {
		global $wpdb;
		if ( $this->locked ) {
			$wpdb->query( $wpdb->prepare( 'SELECT RELEASE_LOCK(%s)', $this->name ) );
			$this->locked = false;
		}
	}

	/**
	 * Seconds until the next attempt is allowed; 0 when it is allowed now.
	 *
	 * @param int $now Unix time.
	 */
	public function retry_after( int $now ): int {
		$recent = $this->recent_failures( $now );
		if ( count( $recent ) < self::MAX_FAILURES ) {
			return 0;
		}
		$oldest_counted = $recent[ count( $recent ) - self::MAX_FAILURES ];
		return max( 1, $oldest_counted + self::WINDOW_S - $now );
	}

	/**
	 * Records one failed attempt.
	 *
	 * @param int $now Unix time.
	 */
	public function record_failure( int $now ): void {
		$recent   = $this->recent_failures( $now );
		$recent[] = $now;
		set_transient( $this->name, array_slice( $recent, -self::MAX_FAILURES ), self::WINDOW_S );
	}

	/**
	 * Forgets the failures (after a successful login).
	 */
	public function clear(): void {
		if ( false !== get_transient( $this->name ) ) {
			delete_transient( $this->name );
		}
	}

	/**
	 * Failure times within the window, oldest first.
	 *
	 * @param int $now Unix time.
	 * @return int[]
	 */
	private function recent_failures( int $now ): array {
		$stored = get_transient( $this->name );
		if ( ! is_array( $stored ) ) {
			return array();
		}
		$recent = array();
		foreach ( $stored as $time ) {
			if ( is_int( $time ) && $time > $now - self::WINDOW_S ) {
				$recent[] = $time;
			}
		}
		return $recent;
	}

	/**
	 * The client's address: REMOTE_ADDR, IPv6 cut to its /64 (one subscriber's network).
	 * Behind a reverse proxy every client shares the proxy's address; the site owner then
	 * supplies the real one through the filter `inkpress_connector_client_address` (only
	 * from a header the proxy sets: a header a client can forge would undo the throttle).
	 */
	public static function client_address(): string {
		$remote = isset( $_SERVER['REMOTE_ADDR'] ) ? (string) $_SERVER['REMOTE_ADDR'] : ''; // phpcs:ignore WordPress.Security.ValidatedSanitizedInput.InputNotSanitized
		/**
		 * Filters the client address the login throttle counts failures for.
		 *
		 * @param string $remote REMOTE_ADDR.
		 */
		$address = (string) apply_filters( 'inkpress_connector_client_address', $remote );
		$packed  = @inet_pton( $address ); // phpcs:ignore WordPress.PHP.NoSilencedErrors.Discouraged
		if ( false === $packed ) {
			return 'invalid';
		}
		if ( 16 === strlen( $packed ) && 0 !== strncmp( $packed, str_repeat( "\0", 10 ) . "\xff\xff", 12 ) ) {
			return inet_ntop( substr( $packed, 0, 8 ) . str_repeat( "\0", 8 ) ) . '/64';
		}
		return inet_ntop( 16 === strlen( $packed ) ? substr( $packed, 12 ) : $packed );
	}

	/**
	 * Forgets every failure record of this site (settings page button, tests).
	 */
	public static function reset_all(): int {
		global $wpdb;
		$names = $wpdb->get_col(
			$wpdb->prepare(
				"SELECT option_name FROM {$wpdb->options} WHERE option_name LIKE %s",
				$wpdb->esc_like( '_transient_' . self::PREFIX ) . '%'
			)
		);
		foreach ( $names as $option ) {
			delete_transient( substr( $option, strlen( '_transient_' ) ) );
		}
		return count( $names );
	}
}
