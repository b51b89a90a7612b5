<?php
/**
 * Scheduled Inkpress posts whose time has come are published on a later request to the site, as
 * WP-Cron would have done. Where WP-Cron does not run (DISABLE_WP_CRON without a system cron, or a
 * host that blocks its loopback request) they would otherwise stay "Missed schedule" while
 * Inkpress reports them live. At most one check a minute; only posts Inkpress made.
 *
 * @package InkpressConnector
 */

defined( 'ABSPATH' ) || exit;

/**
 * Publishes missed scheduled Inkpress posts.
 */
class Inkpress_Schedule {

	/** Transient that spaces the checks. */
	public const CHECKED = 'inkpress_missed_schedule_checked';

	/** Seconds between two checks. */
	private const CHECK_EVERY_SECONDS = 60;

	/** Posts published by one check (the next check takes the rest). */
	private const BATCH = 20;

	/**
	 * Hooks.
	 */
	public static function init(): void {
		add_action( 'init', array( __CLASS__, 'publish_missed' ), 20 );
	}

	/**
	 * Publishes the Inkpress posts still scheduled for a time that has passed.
	 */
	public static function publish_missed(): void {
		if ( wp_installing() || false !== get_transient( self::CHECKED ) ) {
			return;
		}
		set_transient( self::CHECKED, 1, self::CHECK_EVERY_SECONDS );
		$due = get_posts(
			array(
				'post_type'        => 'post',
				'post_status'      => 'future',
				'date_query'       => array(
					array(
						'column'    => 'post_date_gmt',
						'before'    => gmdate( 'Y-m-d H:i:s' ),
						'inclusive' => true,
					),
				),
				// Keys are per user (`_inkpress_article_uuid_<id>`), and unscoped before 1.2.0.
				'meta_query'       => array(
					array(
						'key'         => INKPRESS_CONNECTOR_UUID_META,
						'compare_key' => 'LIKE',
					),
				),
				'fields'           => 'ids',
				'posts_per_page'   => self::BATCH,
				'orderby'          => 'date',
				'order'            => 'ASC',
				'no_found_rows'    => true,
				'suppress_filters' => true,
			)
		);
		foreach ( $due as $post_id ) {
			if ( Inkpress_Rest::is_inkpress_post( (int) $post_id ) ) {
				// What WP-Cron's publish_future_post event runs: publishes only if the time has come.
				check_and_publish_future_post( (int) $post_id );
			}
		}
	}
}
