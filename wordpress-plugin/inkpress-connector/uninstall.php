<?php
/**
 * Uninstall: removes the "Inkpress Editor" role (and takes it off the users holding
 * it). Posts, including their _inkpress_article_uuid meta, are left untouched.
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
