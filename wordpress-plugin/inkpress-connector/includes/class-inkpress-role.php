<?php
/**
 * The "Inkpress Editor" role, and which users may publish through it.
 *
 * @package InkpressConnector
 */

defined( 'ABSPATH' ) || exit;

/**
 * Registers the role, keeps its capabilities exactly as listed, and tells apart users who
 * hold more power than the role.
 */
final class Inkpress_Role {

	/**
	 * Capabilities publishing uses, nothing more (checked against wp_insert_post from the
	 * plugin): edit_posts for drafts and for assigning categories and tags (assign_terms),
	 * publish_posts for live and scheduled posts, read for the user's own profile screen
	 * (where application passwords are made). Creating tags, setting the excerpt and post
	 * meta need no capability of their own when the plugin calls wp_insert_post. Absent on
	 * purpose: unfiltered_html (so kses sanitises content), upload_files, edit_published_posts,
	 * delete_*, edit_others_*, manage_*.
	 *
	 * @var array<string,bool>
	 */
	public const CAPABILITIES = array(
		'read'          => true,
		'edit_posts'    => true,
		'publish_posts' => true,
	);

	/**
	 * Capabilities that give a user more power than the role: a user holding any of them
	 * (an administrator, an editor, any role adding them) is refused like a wrong password.
	 *
	 * @var string[]
	 */
	public const TOO_POWERFUL = array(
		'unfiltered_html',
		'manage_options',
		'edit_users',
		'promote_users',
		'create_users',
		'delete_users',
		'install_plugins',
		'activate_plugins',
		'edit_plugins',
		'edit_themes',
		'switch_themes',
		'edit_files',
		'update_core',
		'manage_network',
	);

	/**
	 * Option holding the plugin version whose capabilities the role was last given.
	 */
	public const VERSION_OPTION = 'inkpress_connector_role_version';

	/**
	 * Hooks.
	 */
	public static function init(): void {
		// Also covers upgrades (files replaced, no activation hook) and installs where the
		// activation hook never ran. plugins_loaded rather than init: the current user (and
		// so its roles) may be resolved before init runs.
		add_action( 'plugins_loaded', array( __CLASS__, 'ensure_role' ), 1 );
	}

	/**
	 * Activation hook.
	 */
	public static function activate(): void {
		self::ensure_role();
	}

	/**
	 * Creates the role if missing; after an upgrade (or the first run of this version) sets
	 * its capabilities to exactly CAPABILITIES, dropping any others (upload_files from 1.0.0
	 * and 1.1.0, which stored no role version, or anything added since). Cheap when nothing
	 * changed: one autoloaded option.
	 */
	public static function ensure_role(): void {
		$role = get_role( INKPRESS_CONNECTOR_ROLE );
		if ( null === $role ) {
			add_role( INKPRESS_CONNECTOR_ROLE, 'Inkpress Editor', self::CAPABILITIES );
			update_option( self::VERSION_OPTION, INKPRESS_CONNECTOR_VERSION );
			return;
		}
		if ( get_option( self::VERSION_OPTION ) === INKPRESS_CONNECTOR_VERSION ) {
			return;
		}
		foreach ( array_keys( (array) $role->capabilities ) as $cap ) {
			if ( ! array_key_exists( $cap, self::CAPABILITIES ) ) {
				$role->remove_cap( $cap );
			}
		}
		foreach ( self::CAPABILITIES as $cap => $grant ) {
			if ( ( $role->capabilities[ $cap ] ?? null ) !== $grant ) {
				$role->add_cap( $cap, $grant );
			}
		}
		update_option( self::VERSION_OPTION, INKPRESS_CONNECTOR_VERSION );
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

	/**
	 * Capabilities of TOO_POWERFUL the user holds, through any role or granted directly (or
	 * all of them for a super admin).
	 *
	 * @param WP_User $user User.
	 * @return string[]
	 */
	public static function excess_capabilities( WP_User $user ): array {
		if ( is_multisite() && is_super_admin( $user->ID ) ) {
			return self::TOO_POWERFUL;
		}
		$held = array();
		foreach ( self::TOO_POWERFUL as $cap ) {
			// allcaps: what roles and grants give, even where multisite maps the cap away.
			if ( ! empty( $user->allcaps[ $cap ] ) || user_can( $user, $cap ) ) {
				$held[] = $cap;
			}
		}
		return $held;
	}

	/**
	 * Whether Inkpress may publish as this user: it holds the role and no more power.
	 *
	 * @param WP_User|null $user User.
	 */
	public static function may_publish( $user ): bool {
		return self::user_has_role( $user ) && array() === self::excess_capabilities( $user );
	}
}
