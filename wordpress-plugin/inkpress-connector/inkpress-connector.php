<?php
/**
 * Plugin Name:       Inkpress Connector
 * Plugin URI:        https://inkpress.app/
 * Description:       Lets Inkpress publish articles to this site through a dedicated "Inkpress Editor" user and a small REST API (namespace inkpress/v1).
 * Version:           1.5.2
 * Requires at least: 6.1
 * Requires PHP:      8.0
 * Author:            Inkpress
 * License:           GPLv2 or later
 * License URI:       https://www.gnu.org/licenses/gpl-2.0.html
 * Text Domain:       inkpress-connector
 * Domain Path:       /languages
 *
 * @package InkpressConnector
 */

defined( 'ABSPATH' ) || exit;

define( 'INKPRESS_CONNECTOR_VERSION', '1.5.2' );
define( 'INKPRESS_CONNECTOR_FILE', __FILE__ );
define( 'INKPRESS_CONNECTOR_ROLE', 'inkpress_editor' );
define( 'INKPRESS_CONNECTOR_NAMESPACE', 'inkpress/v1' );
define( 'INKPRESS_CONNECTOR_UUID_META', '_inkpress_article_uuid' );

require_once __DIR__ . '/includes/class-inkpress-role.php';
require_once __DIR__ . '/includes/class-inkpress-throttle.php';
require_once __DIR__ . '/includes/class-inkpress-auth.php';
require_once __DIR__ . '/includes/class-inkpress-rest.php';
require_once __DIR__ . '/includes/class-inkpress-probe.php';
require_once __DIR__ . '/includes/class-inkpress-index.php';
require_once __DIR__ . '/includes/class-inkpress-blocks.php';
require_once __DIR__ . '/includes/class-inkpress-media.php';
require_once __DIR__ . '/includes/class-inkpress-aioseo.php';
require_once __DIR__ . '/includes/class-inkpress-seo.php';
require_once __DIR__ . '/includes/class-inkpress-schedule.php';
require_once __DIR__ . '/includes/class-inkpress-settings.php';

register_activation_hook( __FILE__, array( 'Inkpress_Role', 'activate' ) );

add_action(
	'init',
	static function (): void {
		load_plugin_textdomain( 'inkpress-connector', false, dirname( plugin_basename( __FILE__ ) ) . '/languages' );
	}
);

Inkpress_Role::init();
Inkpress_Auth::init();
Inkpress_Rest::init();
Inkpress_Probe::init();
Inkpress_Index::init();
Inkpress_Seo::init();
Inkpress_Media::init();
Inkpress_Schedule::init();
if ( is_admin() ) {
	Inkpress_Settings::init();
}
