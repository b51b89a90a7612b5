<?php
/**
 * The site index (plugin 1.5): `GET inkpress/v1/index` lists the site's published posts and
 * pages for Inkpress's internal links and topic check, and the posts route checks every
 * internal link of a post before writing it (a link to a post that is no longer published is
 * dropped, its text kept).
 *
 * @package InkpressConnector
 */

defined( 'ABSPATH' ) || exit;

/**
 * Site index route and internal-link check.
 */
final class Inkpress_Index {

	public const MAX_PER_PAGE = 100;
	public const EXCERPT_MAX  = 300;
	public const META_LINKS   = '_inkpress_internal_links';

	/** Statuses a post may leave `publish` for: listed (with their status only) when `modified_after` is given. */
	private const OTHER_STATUSES = array( 'draft', 'pending', 'private', 'future', 'trash' );

	/**
	 * Hooks.
	 */
	public static function init(): void {
		add_action( 'rest_api_init', array( __CLASS__, 'register_routes' ) );
	}

	/**
	 * Routes.
	 */
	public static function register_routes(): void {
		register_rest_route(
			INKPRESS_CONNECTOR_NAMESPACE,
			'/index',
			array(
				'methods'             => WP_REST_Server::READABLE,
				'callback'            => array( __CLASS__, 'get_index' ),
				'permission_callback' => array( 'Inkpress_Rest', 'permission' ),
			)
		);
	}

	/**
	 * GET index: published posts and pages, most recently modified first, `per_page` (1-100,
	 * default 100) at a time from `page` (1 and up). With `modified_after` (UTC, inclusive) only
	 * those modified since, and also the ones that left `publish` since (draft, pending, private,
	 * future, trash, or password-protected), with their id and status only, so that Inkpress
	 * removes them from its index. Password-protected posts are never listed as published.
	 *
	 * @param WP_REST_Request $request Request.
	 * @return WP_REST_Response|WP_Error
	 */
	public static function get_index( WP_REST_Request $request ) {
		$per_page = self::int_param( $request->get_param( 'per_page' ), self::MAX_PER_PAGE );
		$page     = self::int_param( $request->get_param( 'page' ), 1 );
		if ( null === $per_page || $per_page < 1 || $per_page > self::MAX_PER_PAGE ) {
			return new WP_Error( 'inkpress_invalid_per_page', sprintf( /* translators: %d: most posts per page. */ __( 'per_page must be an integer from 1 to %d.', 'inkpress-connector' ), self::MAX_PER_PAGE ), array( 'status' => 400, 'param' => 'per_page' ) );
		}
		if ( null === $page || $page < 1 ) {
			return new WP_Error( 'inkpress_invalid_page', __( 'page must be a positive integer.', 'inkpress-connector' ), array( 'status' => 400, 'param' => 'page' ) );
		}
		$after = null;
		$raw   = $request->get_param( 'modified_after' );
		if ( null !== $raw && '' !== $raw ) {
			$after = self::parse_utc( $raw );
			if ( null === $after ) {
				return new WP_Error( 'inkpress_invalid_modified_after', __( 'modified_after must be YYYY-MM-DDTHH:MM:SS (UTC, optional trailing Z).', 'inkpress-connector' ), array( 'status' => 400, 'param' => 'modified_after' ) );
			}
		}

		$args = array(
			'post_type'              => array( 'post', 'page' ),
			'post_status'            => null === $after ? array( 'publish' ) : array_merge( array( 'publish' ), self::OTHER_STATUSES ),
			'orderby'                => array(
				'modified' => 'DESC',
				'ID'       => 'DESC',
			),
			'posts_per_page'         => $per_page,
			'paged'                  => $page,
			'ignore_sticky_posts'    => true,
			'suppress_filters'       => true,
			'update_post_term_cache' => true,
			'update_post_meta_cache' => true,
		);
		if ( null === $after ) {
			$args['has_password'] = false;
		} else {
			$args['date_query'] = array(
				array(
					'column'    => 'post_modified_gmt',
					'after'     => $after,
					'inclusive' => true,
				),
			);
		}
		$query = new WP_Query( $args );
		$posts = array();
		foreach ( $query->posts as $post ) {
			$posts[] = self::entry( $post );
		}
		return new WP_REST_Response(
			array(
				'posts'       => $posts,
				'page'        => $page,
				'per_page'    => $per_page,
				'total'       => (int) $query->found_posts,
				'total_pages' => (int) $query->max_num_pages,
			),
			200
		);
	}

	/**
	 * One post of the index; a post that is not published (or has a password) gives only its id
	 * and status.
	 *
	 * @param WP_Post $post Post.
	 */
	private static function entry( WP_Post $post ): array {
		$status = 'publish' === $post->post_status && '' !== $post->post_password ? 'protected' : $post->post_status;
		if ( 'publish' !== $status ) {
			return array(
				'id'     => (int) $post->ID,
				'status' => $status,
			);
		}
		$categories = 'post' === $post->post_type ? get_the_category( $post->ID ) : array();
		return array(
			'id'            => (int) $post->ID,
			'status'        => 'publish',
			'type'          => $post->post_type,
			'title'         => Inkpress_Seo::text( $post->post_title ),
			'link'          => (string) get_permalink( $post ),
			'excerpt'       => self::excerpt( $post ),
			'focus_keyword' => Inkpress_Seo::focus_keyword( (int) $post->ID ),
			'categories'    => array_values(
				array_map(
					static function ( $term ) {
						return Inkpress_Seo::text( $term->name );
					},
					is_array( $categories ) ? $categories : array()
				)
			),
			'modified_gmt'  => str_replace( ' ', 'T', $post->post_modified_gmt ) . 'Z',
			'noindex'       => Inkpress_Seo::is_noindex( (int) $post->ID ),
		);
	}

	/**
	 * Plain text of the post's excerpt (or of its start), at most EXCERPT_MAX characters.
	 *
	 * @param WP_Post $post Post.
	 */
	private static function excerpt( WP_Post $post ): string {
		$source = '' !== trim( $post->post_excerpt ) ? $post->post_excerpt : excerpt_remove_blocks( strip_shortcodes( $post->post_content ) );
		$text   = trim( (string) preg_replace( '/\s+/u', ' ', Inkpress_Seo::text( $source ) ) );
		if ( mb_strlen( $text ) <= self::EXCERPT_MAX ) {
			return $text;
		}
		$cut   = mb_substr( $text, 0, self::EXCERPT_MAX - 1 );
		$space = mb_strrpos( $cut, ' ' );
		return rtrim( false !== $space && $space > self::EXCERPT_MAX / 2 ? mb_substr( $cut, 0, $space ) : $cut ) . '…';
	}

	/**
	 * A positive integer parameter, its default when absent, null when malformed.
	 *
	 * @param mixed $value   Value.
	 * @param int   $default Default.
	 */
	private static function int_param( $value, int $default ): ?int {
		if ( null === $value || '' === $value ) {
			return $default;
		}
		if ( is_int( $value ) ) {
			return $value;
		}
		return is_string( $value ) && ctype_digit( $value ) && strlen( $value ) < 10 ? (int) $value : null;
	}

	/**
	 * "2030-01-02T03:04:05" (optional "Z" or "+00:00") to a MySQL datetime, or null.
	 *
	 * @param mixed $value Value.
	 */
	private static function parse_utc( $value ): ?string {
		if ( ! is_string( $value ) || ! preg_match( '/^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|\+00:?00)?$/', $value, $m ) ) {
			return null;
		}
		if ( ! checkdate( (int) $m[2], (int) $m[3], (int) $m[1] ) || (int) $m[4] > 23 || (int) $m[5] > 59 || (int) $m[6] > 59 ) {
			return null;
		}
		return sprintf( '%s-%s-%s %s:%s:%s', $m[1], $m[2], $m[3], $m[4], $m[5], $m[6] );
	}

	/**
	 * Checks the internal links of a post's parts before it is written: a link to this site whose
	 * post is published (and has no password) stays, pointed at the post's current permalink; any
	 * other link to this site (a draft, a private, trashed or deleted post, or no post at all) is
	 * dropped and its text kept. `internal_links` of the request ([{url, post_id}]) says which
	 * post each URL was meant for, so a post whose permalink changed keeps its link. Links to
	 * other hosts are left alone.
	 *
	 * @param array $structure array{intro_html: string, sections: array, faq: ?array}.
	 * @param mixed $declared  The request's `internal_links`.
	 * @return array{0: array, 1: int, 2: int, 3: string[]} The structure, links kept, links dropped,
	 *                                                       and the URLs of those dropped as sent.
	 */
	public static function check_links( array $structure, $declared ): array {
		$meant = array();
		if ( is_array( $declared ) ) {
			foreach ( $declared as $link ) {
				if ( is_array( $link ) && is_string( $link['url'] ?? null ) && isset( $link['post_id'] ) && ( is_int( $link['post_id'] ) || ( is_string( $link['post_id'] ) && ctype_digit( $link['post_id'] ) ) ) ) {
					$meant[ $link['url'] ] = (int) $link['post_id'];
				}
			}
		}
		$counts = array(
			'kept'         => 0,
			'dropped'      => 0,
			'dropped_urls' => array(),
		);
		$check  = static function ( string $html ) use ( $meant, &$counts ): string {
			return self::check_html_links( $html, $meant, $counts );
		};
		$structure['intro_html'] = $check( $structure['intro_html'] );
		foreach ( $structure['sections'] as $i => $section ) {
			$structure['sections'][ $i ]['html'] = $check( $section['html'] );
		}
		return array( $structure, $counts['kept'], $counts['dropped'], array_values( array_unique( $counts['dropped_urls'] ) ) );
	}

	/**
	 * The links of one HTML fragment checked (see check_links).
	 *
	 * @param string $html   HTML.
	 * @param array  $meant  URL => post id.
	 * @param array  $counts Kept and dropped, counted.
	 */
	private static function check_html_links( string $html, array $meant, array &$counts ): string {
		$home = wp_parse_url( home_url( '/' ) );
		$host = strtolower( (string) ( $home['host'] ?? '' ) );
		$out  = preg_replace_callback(
			'#<a\b([^>]*)>(.*?)</a>#is',
			static function ( array $m ) use ( $meant, $host, &$counts ) {
				if ( ! preg_match( '#\bhref\s*=\s*("([^"]*)"|\'([^\']*)\')#i', $m[1], $href_match ) ) {
					return $m[0];
				}
				$href  = html_entity_decode( '' !== ( $href_match[2] ?? '' ) ? $href_match[2] : ( $href_match[3] ?? '' ), ENT_QUOTES | ENT_HTML5, 'UTF-8' );
				$parts = wp_parse_url( $href );
				if ( ! is_array( $parts ) ) {
					return $m[0];
				}
				$link_host = strtolower( (string) ( $parts['host'] ?? '' ) );
				if ( '' !== $link_host && $link_host !== $host ) {
					return $m[0];
				}
				if ( '' === $link_host && ! isset( $parts['path'] ) && ! isset( $parts['query'] ) ) {
					// A fragment or empty link within the page: not a link to another post.
					return $m[0];
				}
				$post_id = $meant[ $href ] ?? url_to_postid( $href );
				$post    = $post_id > 0 ? get_post( $post_id ) : null;
				if ( $post instanceof WP_Post && 'publish' === $post->post_status && '' === $post->post_password && in_array( $post->post_type, array( 'post', 'page' ), true ) ) {
					++$counts['kept'];
					return '<a href="' . esc_url( (string) get_permalink( $post ) ) . '">' . $m[2] . '</a>';
				}
				++$counts['dropped'];
				$counts['dropped_urls'][] = $href;
				return $m[2];
			},
			$html
		);
		return null === $out ? $html : $out;
	}

	/**
	 * Records what the link check did for a post (its read-back reports it).
	 *
	 * @param int      $post_id      Post.
	 * @param int      $kept         Links kept.
	 * @param int      $dropped      Links dropped.
	 * @param string[] $dropped_urls The URLs of the links dropped, as sent.
	 */
	public static function store_link_counts( int $post_id, int $kept, int $dropped, array $dropped_urls = array() ): void {
		update_post_meta(
			$post_id,
			self::META_LINKS,
			array(
				'kept'         => $kept,
				'dropped'      => $dropped,
				'dropped_urls' => array_values( array_filter( $dropped_urls, 'is_string' ) ),
			)
		);
	}

	/**
	 * The read-back of the link check: `internal_links_kept`, `internal_links_dropped` and (1.5.2)
	 * `internal_links_dropped_urls`, the URLs of the links dropped as Inkpress sent them.
	 *
	 * @param int $post_id Post.
	 */
	public static function readback( int $post_id ): array {
		$counts = get_post_meta( $post_id, self::META_LINKS, true );
		$urls   = is_array( $counts ) && is_array( $counts['dropped_urls'] ?? null ) ? $counts['dropped_urls'] : array();
		return array(
			'internal_links_kept'         => is_array( $counts ) ? (int) ( $counts['kept'] ?? 0 ) : 0,
			'internal_links_dropped'      => is_array( $counts ) ? (int) ( $counts['dropped'] ?? 0 ) : 0,
			'internal_links_dropped_urls' => array_values( array_filter( $urls, 'is_string' ) ),
		);
	}
}
