<?php
/**
 * The "Inkpress Editor" role.
 *
 * @package InkpressConnector
 */

defined( 'ABSPATH' ) || exit;

/**
 * Registers the role and keeps its capabilities in place.
 */
final class Inkpress_Role {

	/**
	 * Capabilities publishing needs, nothing more. Assigning categories maps to
	 * edit_posts; scheduling (future date) needs publish_posts. Deliberately absent:
	 * unfiltered_html (so kses sanitises content), delete_*, edit_others_*, manage_*.
	 *
	 * @var array<string,bool>
	 */
	public const CAPABILITIES = array(
		'read'                 => true,
		'edit_posts'           => true,
		'publish_posts'        => true,
		'edit_published_posts' => true,
		'upload_files'         => true,
	);

	/**
	 * Hooks.
	 */
	public static function init(): void {
		// Also covers installs where the activation hook never ran (files copied in,
		// activated by option, multisite sites created later). plugins_loaded rather than
		// init: the current user (and so its roles) is resolved before init runs.
		add_action( 'plugins_loaded', array( __CLASS__, 'ensure_role' ), 1 );
	}

	/**
	 * Activation hook.
	 */
	public static function activate(): void {
		self::ensure_role();
	}

	/**
	 * Adds the role if missing and any missing capability. Never removes capabilities
	 * a site owner added on purpose.
	 */
	public static function ensure_role(): void {
		$role = get_role( INKPRESS_CONNECTOR_ROLE );
		if ( null === $role ) {
			add_role( INKPRESS_CONNECTOR_ROLE, 'Inkpress Editor', self::CAPABILITIES );
			return;
		}
		foreach ( self::CAPABILITIES as $cap => $grant ) {
			if ( empty( $role->capabilities[ $cap ] ) ) {
				$role->add_cap( $cap, $grant );
			}
		}
	}

	/**
	 * Whether the user holds the role.
	 *
	 * @param WP_User|null $user User.
	 */
	public static function user_has_role( $user ): bool {
		return $user instanceof WP_User && $user->exists()
			&& in_array( INKPRESS_CONNECTOR_ROLE, (array) $user->roles, true );
	}
}
