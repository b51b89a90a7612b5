<?php
/**
 * Uninstall: removes the "Inkpress Editor" role (and takes it off the users holding
 * it), the plugin's option and its failed-login records. Posts, including their
 * _inkpress_article_uuid* meta, are left untouched.
 *
 * @package InkpressConnector
 */

defined( 'WP_UNINSTALL_PLUGIN' ) || exit;

/**
 * Removes the role from the current site.
 */
function inkpress_connector_uninstall_site(): void {
	$users = get_users(
		array(
			'role'   => 'inkpress_editor',
			'fields' => 'all',
		)
	);
	foreach ( $users as $user ) {
		$user->remove_role( 'inkpress_editor' );
	}
	remove_role( 'inkpress_editor' );
	delete_option( 'inkpress_connector_role_version' );
	delete_option( 'inkpress_connector_aioseo_table' );
	global $wpdb;
	$names = $wpdb->get_col(
		$wpdb->prepare(
			"SELECT option_name FROM {$wpdb->options} WHERE option_name LIKE %s",
			$wpdb->esc_like( '_transient_inkpress_login_' ) . '%'
		)
	);
	foreach ( $names as $name ) {
		delete_transient( substr( $name, strlen( '_transient_' ) ) );
	}
}

if ( is_multisite() ) {
	foreach ( get_sites( array( 'fields' => 'ids', 'number' => 0 ) ) as $inkpress_site_id ) {
		switch_to_blog( (int) $inkpress_site_id );
		inkpress_connector_uninstall_site();
		restore_current_blog();
	}
} else {
	inkpress_connector_uninstall_site();
}
