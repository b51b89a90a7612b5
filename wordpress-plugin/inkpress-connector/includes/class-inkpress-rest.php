<?php
/**
 * REST routes: GET status, GET categories, POST posts, GET posts/<article uuid> (namespace inkpress/v1;
 * GET index is in class-inkpress-index.php).
 *
 * @package InkpressConnector
 */

defined( 'ABSPATH' ) || exit;

/**
 * REST controller.
 */
final class Inkpress_Rest {

	private const STATUSES       = array( 'publish', 'draft', 'future' );
	private const LOCK_TIMEOUT_S = 15;
	private const TERMS_PER_PAGE = 500;
	private const MAX_SECTIONS   = 50;
	private const MAX_FAQ        = 20;
	private const MAX_SOURCES    = 20;
	private const MAX_TAGS       = 30;

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
			'/status',
			array(
				'methods'             => WP_REST_Server::READABLE,
				'callback'            => array( __CLASS__, 'get_status' ),
				'permission_callback' => array( __CLASS__, 'permission' ),
			)
		);
		register_rest_route(
			INKPRESS_CONNECTOR_NAMESPACE,
			'/categories',
			array(
				'methods'             => WP_REST_Server::READABLE,
				'callback'            => array( __CLASS__, 'get_categories' ),
				'permission_callback' => array( __CLASS__, 'permission' ),
			)
		);
		register_rest_route(
			INKPRESS_CONNECTOR_NAMESPACE,
			'/posts',
			array(
				'methods'             => WP_REST_Server::CREATABLE,
				'callback'            => array( __CLASS__, 'create_post' ),
				'permission_callback' => array( __CLASS__, 'permission' ),
			)
		);
		register_rest_route(
			INKPRESS_CONNECTOR_NAMESPACE,
			'/posts/(?P<article_uuid>[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})',
			array(
				'methods'             => WP_REST_Server::READABLE,
				'callback'            => array( __CLASS__, 'read_post' ),
				'permission_callback' => array( __CLASS__, 'permission' ),
			)
		);
	}

	/**
	 * GET posts/<article_uuid>: the post this user made for the article, as the create answer
	 * shows it (a read: nothing is created). A scheduled post whose time has passed is published
	 * first, as WP-Cron would have done, so that reading it after its time finds it live.
	 *
	 * @param WP_REST_Request $request Request.
	 * @return WP_REST_Response|WP_Error
	 */
	public static function read_post( WP_REST_Request $request ) {
		// The route's own parameter: a query-string `article_uuid` takes precedence in `$request[...]`.
		$params = $request->get_url_params();
		$uuid   = isset( $params['article_uuid'] ) && is_string( $params['article_uuid'] ) ? strtolower( $params['article_uuid'] ) : '';
		if ( ! preg_match( '/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/', $uuid ) ) {
			return self::invalid( 'inkpress_invalid_article_uuid', __( 'The article uuid must be a UUID.', 'inkpress-connector' ), 'article_uuid' );
		}
		$post_id = self::find_post_id( $uuid, get_current_user_id() );
		if ( null === $post_id ) {
			return new WP_Error( 'inkpress_post_not_found', __( 'This user has no post for this article.', 'inkpress-connector' ), array( 'status' => 404 ) );
		}
		$post = get_post( $post_id );
		if ( $post && 'future' === $post->post_status && strtotime( $post->post_date_gmt . ' UTC' ) <= time() ) {
			check_and_publish_future_post( $post );
		}
		return self::post_response( $post_id, $uuid, false );
	}

	/**
	 * Every route: a user holding the role and no more power (however it logged in);
	 * anything else gets the same answer as a failed login.
	 *
	 * @return true|WP_Error
	 */
	public static function permission() {
		return Inkpress_Role::may_publish( wp_get_current_user() ) ? true : Inkpress_Auth::login_failed_error();
	}

	/**
	 * Post meta key holding the article uuid of posts created for this user: idempotency is
	 * per user (and per site: each site has its own postmeta table).
	 *
	 * @param int $user_id User ID.
	 */
	public static function uuid_meta_key( int $user_id ): string {
		return INKPRESS_CONNECTOR_UUID_META . '_' . $user_id;
	}

	/**
	 * Whether Inkpress created the post (for any user, or with the unscoped key of plugins before 1.2.0).
	 *
	 * @param int $post_id Post ID.
	 */
	public static function is_inkpress_post( int $post_id ): bool {
		foreach ( array_keys( (array) get_post_meta( $post_id ) ) as $key ) {
			$key = (string) $key;
			if ( INKPRESS_CONNECTOR_UUID_META === $key || 0 === strpos( $key, INKPRESS_CONNECTOR_UUID_META . '_' ) ) {
				return true;
			}
		}
		return false;
	}

	/**
	 * Makes shortcodes in content inert: brackets outside HTML comments become entities, so
	 * "[gallery]" shows as text and never runs (WordPress keeps comments inert itself, and
	 * block delimiters in comments keep their JSON).
	 *
	 * @param string $html Content.
	 */
	public static function neutralise_shortcodes( string $html ): string {
		$parts = preg_split( '/(<!--.*?-->)/s', $html, -1, PREG_SPLIT_DELIM_CAPTURE );
		if ( false === $parts ) {
			return strtr( $html, array( '[' => '&#091;', ']' => '&#093;' ) );
		}
		foreach ( $parts as $i => $part ) {
			if ( 0 === $i % 2 ) {
				$parts[ $i ] = strtr( $part, array( '[' => '&#091;', ']' => '&#093;' ) );
			}
		}
		return implode( '', $parts );
	}

	/**
	 * GET status.
	 */
	public static function get_status(): WP_REST_Response {
		$user = wp_get_current_user();
		return new WP_REST_Response(
			array(
				'user'              => array(
					'id'    => (int) $user->ID,
					'login' => $user->user_login,
					'roles' => array_values( (array) $user->roles ),
				),
				'role_ok'           => true,
				'wordpress_version' => get_bloginfo( 'version' ),
				'plugin_version'    => INKPRESS_CONNECTOR_VERSION,
				'php_version'       => PHP_VERSION,
				'site_url'          => home_url( '/' ),
				'timezone'          => wp_timezone_string(),
				'auth_headers'      => Inkpress_Probe::headers_received(),
			),
			200
		);
	}

	/**
	 * GET categories: all of them, paged through get_terms.
	 *
	 * @return WP_REST_Response|WP_Error
	 */
	public static function get_categories() {
		$out    = array();
		$offset = 0;
		do {
			$terms = get_terms(
				array(
					'taxonomy'               => 'category',
					'hide_empty'             => false,
					'orderby'                => 'term_id',
					'order'                  => 'ASC',
					'number'                 => self::TERMS_PER_PAGE,
					'offset'                 => $offset,
					'update_term_meta_cache' => false,
				)
			);
			if ( is_wp_error( $terms ) ) {
				return new WP_Error( 'inkpress_categories_failed', $terms->get_error_message(), array( 'status' => 500 ) );
			}
			foreach ( $terms as $term ) {
				$out[] = array(
					'id'     => (int) $term->term_id,
					'name'   => wp_specialchars_decode( $term->name, ENT_QUOTES ),
					'slug'   => $term->slug,
					'parent' => (int) $term->parent,
				);
			}
			$offset += self::TERMS_PER_PAGE;
		} while ( count( $terms ) === self::TERMS_PER_PAGE );

		return new WP_REST_Response( array( 'categories' => $out ), 200 );
	}

	/**
	 * Validation error.
	 *
	 * @param string $code    Code.
	 * @param string $message Message.
	 * @param string $param   Offending field.
	 * @param int    $status  HTTP status.
	 */
	private static function invalid( string $code, string $message, string $param, int $status = 400 ): WP_Error {
		return new WP_Error( $code, $message, array( 'status' => $status, 'param' => $param ) );
	}

	/**
	 * POST posts. Idempotent on article_uuid for the current user.
	 *
	 * @param WP_REST_Request $request Request.
	 * @return WP_REST_Response|WP_Error
	 */
	public static function create_post( WP_REST_Request $request ) {
		$body = $request->get_json_params();
		if ( ! is_array( $body ) || array() === $body ) {
			return self::invalid( 'inkpress_invalid_body', __( 'Expected a JSON object body (Content-Type: application/json).', 'inkpress-connector' ), 'body' );
		}

		// article_uuid.
		$uuid = $body['article_uuid'] ?? null;
		if ( ! is_string( $uuid ) || ! preg_match( '/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i', $uuid ) ) {
			return self::invalid( 'inkpress_invalid_article_uuid', __( 'article_uuid is required and must be a UUID.', 'inkpress-connector' ), 'article_uuid' );
		}
		$uuid = strtolower( $uuid );

		// title, content.
		$title = $body['title'] ?? null;
		if ( ! is_string( $title ) || '' === trim( $title ) ) {
			return self::invalid( 'inkpress_invalid_title', __( 'title is required and must be a non-empty string.', 'inkpress-connector' ), 'title' );
		}
		$structure = self::structure( $body );
		if ( is_wp_error( $structure ) ) {
			return $structure;
		}
		$seo = self::seo_fields( $body );
		if ( is_wp_error( $seo ) ) {
			return $seo;
		}
		$images = Inkpress_Media::images_of( $body );
		if ( is_wp_error( $images ) ) {
			return $images;
		}

		// status.
		$status = $body['status'] ?? null;
		if ( ! is_string( $status ) || ! in_array( $status, self::STATUSES, true ) ) {
			return self::invalid( 'inkpress_invalid_status', __( 'status must be one of publish, draft, future.', 'inkpress-connector' ), 'status' );
		}

		// slug.
		$slug = '';
		if ( isset( $body['slug'] ) && '' !== $body['slug'] ) {
			if ( ! is_string( $body['slug'] ) ) {
				return self::invalid( 'inkpress_invalid_slug', __( 'slug must be a string.', 'inkpress-connector' ), 'slug' );
			}
			$slug = sanitize_title( $body['slug'] );
			if ( '' === $slug ) {
				return self::invalid( 'inkpress_invalid_slug', __( 'slug has no usable characters.', 'inkpress-connector' ), 'slug' );
			}
		}

		// date_gmt.
		$date_gmt = null;
		if ( isset( $body['date_gmt'] ) && '' !== $body['date_gmt'] ) {
			$date_gmt = self::parse_date_gmt( $body['date_gmt'] );
			if ( null === $date_gmt ) {
				return self::invalid( 'inkpress_invalid_date', __( 'date_gmt must be YYYY-MM-DDTHH:MM:SS (UTC, optional trailing Z).', 'inkpress-connector' ), 'date_gmt' );
			}
		}
		if ( 'future' === $status && null === $date_gmt ) {
			return self::invalid( 'inkpress_missing_date', __( 'date_gmt is required when status is future.', 'inkpress-connector' ), 'date_gmt' );
		}

		// category_id.
		$category_id = null;
		if ( isset( $body['category_id'] ) ) {
			$raw = $body['category_id'];
			if ( ! ( is_int( $raw ) || ( is_string( $raw ) && ctype_digit( $raw ) ) ) || (int) $raw <= 0 ) {
				return self::invalid( 'inkpress_invalid_category', __( 'category_id must be a positive integer.', 'inkpress-connector' ), 'category_id' );
			}
			$term = get_term( (int) $raw, 'category' );
			if ( ! $term instanceof WP_Term ) {
				return self::invalid( 'inkpress_unknown_category', __( 'No category with this id exists on the site.', 'inkpress-connector' ), 'category_id', 422 );
			}
			$category_id = (int) $term->term_id;
		}

		$cap = 'draft' === $status ? 'edit_posts' : 'publish_posts';
		if ( ! current_user_can( $cap ) ) {
			return new WP_Error( 'inkpress_forbidden', 'draft' === $status ? __( 'This user cannot create posts.', 'inkpress-connector' ) : __( 'This user cannot publish posts.', 'inkpress-connector' ), array( 'status' => 403 ) );
		}

		global $wpdb;
		$user_id = get_current_user_id();
		$lock    = 'inkpress:' . md5( DB_NAME . '|' . $wpdb->prefix . '|' . $user_id . '|' . $uuid );
		$got     = $wpdb->get_var( $wpdb->prepare( 'SELECT GET_LOCK(%s, %d)', $lock, self::LOCK_TIMEOUT_S ) );
		if ( '1' !== (string) $got ) {
			return new WP_Error( 'inkpress_busy', __( 'Another request for this article is in progress; retry.', 'inkpress-connector' ), array( 'status' => 503 ) );
		}
		try {
			$existing = self::find_post_id( $uuid, $user_id );
			if ( null !== $existing ) {
				return self::post_response( $existing, $uuid, false );
			}

			// Internal links to posts no longer published are dropped (their text kept).
			[ $structure, $links_kept, $links_dropped, $links_dropped_urls ] = Inkpress_Index::check_links( $structure, $body['internal_links'] ?? null );

			$media_ids = Inkpress_Media::attach( $images, $uuid, $title );
			if ( is_wp_error( $media_ids ) ) {
				return $media_ids;
			}
			$blocks  = Inkpress_Media::place_inline( Inkpress_Blocks::post_blocks( $structure['intro_html'], $structure['sections'], $structure['faq'], $structure['sources'] ), $images, $media_ids );
			$postarr = array(
				'post_type'    => 'post',
				'post_author'  => $user_id,
				'post_title'   => $title,
				// Blocks of escaped text, then every bracket made inert (in headings, FAQ and
				// the model's HTML alike; the block editor compares text decoded, so the blocks
				// stay valid).
				'post_content' => self::neutralise_shortcodes( Inkpress_Blocks::serialize( $blocks ) ),
				'post_excerpt' => self::neutralise_shortcodes( $seo['excerpt'] ),
				'post_status'  => $status,
				'meta_input'   => array( self::uuid_meta_key( $user_id ) => $uuid ),
			);
			if ( array() !== $seo['tags'] ) {
				$postarr['tags_input'] = $seo['tags'];
			}
			if ( '' !== $slug ) {
				$postarr['post_name'] = $slug;
			}
			if ( null !== $date_gmt ) {
				$postarr['post_date_gmt'] = $date_gmt;
				$postarr['post_date']     = get_date_from_gmt( $date_gmt );
			}
			if ( null !== $category_id ) {
				$postarr['post_category'] = array( $category_id );
			}

			// wp_insert_post expects slashed data; kses applies (no unfiltered_html).
			$post_id = wp_insert_post( wp_slash( $postarr ), true );
			if ( is_wp_error( $post_id ) ) {
				return new WP_Error( 'inkpress_insert_failed', $post_id->get_error_message(), array( 'status' => 500, 'wp_code' => $post_id->get_error_code() ) );
			}
			Inkpress_Index::store_link_counts( (int) $post_id, $links_kept, $links_dropped, $links_dropped_urls );
			Inkpress_Seo::store(
				(int) $post_id,
				$seo['meta_description'],
				$seo['focus_keyword'],
				$seo['language'],
				null === $structure['faq'] ? array() : $structure['faq']['items'],
				$title
			);
			Inkpress_Seo::store_citations( (int) $post_id, null === $structure['sources'] ? array() : $structure['sources']['items'] );
			Inkpress_Media::attach_to_post( (int) $post_id, $media_ids );
			return self::post_response( (int) $post_id, $uuid, true );
		} finally {
			$wpdb->query( $wpdb->prepare( 'SELECT RELEASE_LOCK(%s)', $lock ) );
		}
	}

	/**
	 * The post's parts: intro_html, sections [{heading, html}] and faq {heading, items
	 * [{question, answer}]}; or, from Inkpress before 1.1, one `content` string of HTML cut at
	 * its H2 headings.
	 *
	 * @param array $body Request body.
	 * @return array|WP_Error array{intro_html: string, sections: array, faq: ?array}
	 */
	private static function structure( array $body ) {
		if ( ! isset( $body['sections'] ) && isset( $body['content'] ) ) {
			if ( ! is_string( $body['content'] ) ) {
				return self::invalid( 'inkpress_invalid_content', __( 'content must be a string of HTML.', 'inkpress-connector' ), 'content' );
			}
			return self::split_content( $body['content'] );
		}
		$intro = $body['intro_html'] ?? '';
		if ( ! is_string( $intro ) ) {
			return self::invalid( 'inkpress_invalid_intro', __( 'intro_html must be a string of HTML.', 'inkpress-connector' ), 'intro_html' );
		}
		$sections = $body['sections'] ?? null;
		if ( ! is_array( $sections ) || ! self::is_list( $sections ) || count( $sections ) > self::MAX_SECTIONS ) {
			return self::invalid( 'inkpress_invalid_sections', sprintf(
					/* translators: %d: most sections a post may have. */
					__( 'sections must be a list of at most %d {heading, html} objects.', 'inkpress-connector' ),
					self::MAX_SECTIONS
				), 'sections' );
		}
		foreach ( $sections as $section ) {
			if ( ! is_array( $section ) || ! is_string( $section['heading'] ?? null ) || ! is_string( $section['html'] ?? null ) || '' === trim( $section['heading'] ) ) {
				return self::invalid( 'inkpress_invalid_sections', __( 'Each section needs a non-empty heading and an html string.', 'inkpress-connector' ), 'sections' );
			}
		}
		$faq = null;
		if ( isset( $body['faq'] ) ) {
			$raw   = $body['faq'];
			$items = is_array( $raw ) ? ( $raw['items'] ?? null ) : null;
			if ( ! is_array( $raw ) || ! is_string( $raw['heading'] ?? null ) || '' === trim( $raw['heading'] ) || ! is_array( $items ) || ! self::is_list( $items ) || count( $items ) > self::MAX_FAQ ) {
				return self::invalid( 'inkpress_invalid_faq', sprintf(
					/* translators: %d: most FAQ items. */
					__( 'faq must be {heading, items: [{question, answer}]} with at most %d items.', 'inkpress-connector' ),
					self::MAX_FAQ
				), 'faq' );
			}
			$clean = array();
			foreach ( $items as $item ) {
				if ( ! is_array( $item ) || ! is_string( $item['question'] ?? null ) || ! is_string( $item['answer'] ?? null ) ) {
					return self::invalid( 'inkpress_invalid_faq', __( 'Each FAQ item needs a question and an answer string.', 'inkpress-connector' ), 'faq' );
				}
				$question = sanitize_text_field( $item['question'] );
				$answer   = sanitize_textarea_field( $item['answer'] );
				if ( '' !== $question && '' !== $answer ) {
					$clean[] = array(
						'question' => $question,
						'answer'   => $answer,
					);
				}
			}
			$faq = array() === $clean ? null : array(
				'heading' => sanitize_text_field( $raw['heading'] ),
				'items'   => $clean,
			);
		}
		$sources = self::sources( $body );
		if ( is_wp_error( $sources ) ) {
			return $sources;
		}
		return array(
			'sources'    => $sources,
			'intro_html' => $intro,
			'sections'   => array_map(
				static function ( $section ) {
					return array(
						'heading' => sanitize_text_field( $section['heading'] ),
						'html'    => $section['html'],
					);
				},
				$sections
			),
			'faq'        => $faq,
		);
	}

	/**
	 * Whether an array is a list (array_is_list() needs PHP 8.1).
	 *
	 * @param array $value Array.
	 */
	private static function is_list( array $value ): bool {
		return array() === $value || array_keys( $value ) === range( 0, count( $value ) - 1 );
	}

	/**
	 * Legacy HTML content cut into an introduction and H2 sections.
	 *
	 * @param string $content HTML.
	 */
	private static function split_content( string $content ): array {
		$parts    = preg_split( '#<h2(?:\s[^>]*)?>(.*?)</h2>#is', $content, -1, PREG_SPLIT_DELIM_CAPTURE );
		$sections = array();
		$count    = count( $parts );
		for ( $i = 1; $i + 1 < $count; $i += 2 ) {
			$sections[] = array(
				'heading' => trim( html_entity_decode( wp_strip_all_tags( $parts[ $i ] ), ENT_QUOTES, 'UTF-8' ) ),
				'html'    => $parts[ $i + 1 ],
			);
		}
		return array(
			'intro_html' => $parts[0] ?? '',
			'sections'   => $sections,
			'faq'        => null,
			'sources'    => null,
		);
	}

	/**
	 * The sources section: {heading, items [{title, url}]}, a url null (its link was dropped) or an
	 * http(s) address; at most MAX_SOURCES items. Null when absent or empty.
	 *
	 * @param array $body Request body.
	 * @return array|WP_Error|null
	 */
	private static function sources( array $body ) {
		if ( ! isset( $body['sources'] ) ) {
			return null;
		}
		$raw   = $body['sources'];
		$items = is_array( $raw ) ? ( $raw['items'] ?? null ) : null;
		if ( ! is_array( $raw ) || ! is_string( $raw['heading'] ?? null ) || '' === trim( $raw['heading'] ) || ! is_array( $items ) || ! self::is_list( $items ) || count( $items ) > self::MAX_SOURCES ) {
			return self::invalid( 'inkpress_invalid_sources', sprintf(
					/* translators: %d: most sources. */
					__( 'sources must be {heading, items: [{title, url}]} with at most %d items.', 'inkpress-connector' ),
					self::MAX_SOURCES
				), 'sources' );
		}
		$clean = array();
		foreach ( $items as $item ) {
			$url = is_array( $item ) ? ( $item['url'] ?? null ) : null;
			if ( ! is_array( $item ) || ! is_string( $item['title'] ?? null ) || ! ( null === $url || is_string( $url ) ) ) {
				return self::invalid( 'inkpress_invalid_sources', __( 'Each source needs a title string and a url (string or null).', 'inkpress-connector' ), 'sources' );
			}
			$url   = null === $url ? '' : esc_url_raw( $url, array( 'http', 'https' ) );
			$title = sanitize_text_field( $item['title'] );
			if ( '' === $title ) {
				$title = $url;
			}
			if ( '' !== $title ) {
				$clean[] = array(
					'title' => $title,
					'url'   => '' === $url ? null : $url,
				);
			}
		}
		return array() === $clean ? null : array(
			'heading' => sanitize_text_field( $raw['heading'] ),
			'items'   => $clean,
		);
	}

	/**
	 * SEO fields: meta_description, focus_keyword, excerpt, language (plain text) and tags.
	 *
	 * @param array $body Request body.
	 * @return array|WP_Error
	 */
	private static function seo_fields( array $body ) {
		$fields = array();
		foreach ( array(
			'meta_description' => 320,
			'focus_keyword'    => 200,
			'excerpt'          => 1000,
			'language'         => 20,
		) as $field => $max ) {
			$value = $body[ $field ] ?? '';
			if ( ! is_string( $value ) || mb_strlen( $value ) > $max ) {
				return self::invalid( 'inkpress_invalid_' . $field, sprintf(
						/* translators: 1: field name, 2: most characters. */
						__( '%1$s must be a string of at most %2$d characters.', 'inkpress-connector' ),
						$field,
						$max
					), $field );
			}
			$fields[ $field ] = 'excerpt' === $field ? sanitize_textarea_field( $value ) : sanitize_text_field( $value );
		}
		$tags = $body['tags'] ?? array();
		if ( ! is_array( $tags ) || ! self::is_list( $tags ) || count( $tags ) > self::MAX_TAGS ) {
			return self::invalid( 'inkpress_invalid_tags', sprintf(
					/* translators: %d: most tags. */
					__( 'tags must be a list of at most %d strings.', 'inkpress-connector' ),
					self::MAX_TAGS
				), 'tags' );
		}
		$fields['tags'] = array();
		foreach ( $tags as $tag ) {
			if ( ! is_string( $tag ) || mb_strlen( $tag ) > 100 ) {
				return self::invalid( 'inkpress_invalid_tags', __( 'Each tag must be a string of at most 100 characters.', 'inkpress-connector' ), 'tags' );
			}
			// A comma would split the tag in two (tags_input takes comma-separated names).
			$tag = trim( str_replace( ',', ' ', sanitize_text_field( $tag ) ) );
			// WordPress keeps term names as HTML (`&lt;b&gt;` is shown as `<b>`): the text Inkpress
			// sent is escaped once more, so that the site shows exactly that text.
			$name = htmlspecialchars( $tag, ENT_NOQUOTES, 'UTF-8', true );
			// A name with nothing sanitize_title keeps (`"›`) has no slug, and term_exists() then
			// matches whatever tag comes first: such a tag is left out (the read-back shows it).
			if ( '' === $tag || '' === sanitize_title( $name ) ) {
				continue;
			}
			$fields['tags'][] = $name;
		}
		return $fields;
	}

	/**
	 * "2030-01-02T03:04:05" or with "Z" / "+00:00" → MySQL datetime, or null.
	 *
	 * @param mixed $value Value.
	 */
	private static function parse_date_gmt( $value ): ?string {
		if ( ! is_string( $value ) || ! preg_match( '/^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|\+00:?00)?$/', $value, $m ) ) {
			return null;
		}
		if ( ! checkdate( (int) $m[2], (int) $m[3], (int) $m[1] ) || (int) $m[4] > 23 || (int) $m[5] > 59 || (int) $m[6] > 59 || (int) $m[1] < 1970 ) {
			return null;
		}
		return sprintf( '%s-%s-%s %s:%s:%s', $m[1], $m[2], $m[3], $m[4], $m[5], $m[6] );
	}

	/**
	 * The post created earlier for this article by this user, in any status (trash
	 * included). Posts of plugins before 1.2.0 carry the unscoped meta key; theirs are those the user
	 * wrote.
	 *
	 * @param string $uuid    Article UUID.
	 * @param int    $user_id User ID.
	 */
	private static function find_post_id( string $uuid, int $user_id ): ?int {
		global $wpdb;
		$id = $wpdb->get_var(
			$wpdb->prepare(
				"SELECT pm.post_id FROM {$wpdb->postmeta} pm INNER JOIN {$wpdb->posts} p ON p.ID = pm.post_id
				 WHERE pm.meta_value = %s AND ( pm.meta_key = %s OR ( pm.meta_key = %s AND p.post_author = %d ) )
				 ORDER BY pm.post_id ASC LIMIT 1",
				$uuid,
				self::uuid_meta_key( $user_id ),
				INKPRESS_CONNECTOR_UUID_META,
				$user_id
			)
		);
		return null === $id ? null : (int) $id;
	}

	/**
	 * What the site kept of the post: its blocks, tags, excerpt, SEO fields and schema.
	 *
	 * @param int          $post_id Post ID.
	 * @param WP_Post|null $post    Post.
	 */
	private static function readback( int $post_id, ?WP_Post $post ): array {
		$counts = Inkpress_Blocks::count( $post ? $post->post_content : '' );
		$tags   = wp_get_post_tags( $post_id, array( 'fields' => 'names' ) );
		return array_merge(
			array(
				'blocks'          => $counts['blocks'],
				'freeform_blocks' => $counts['freeform'],
				'tags'            => array_map( 'wp_specialchars_decode', is_array( $tags ) ? $tags : array() ),
				'excerpt'         => $post && '' !== trim( $post->post_excerpt ),
			),
			Inkpress_Seo::readback( $post_id ),
			Inkpress_Index::readback( $post_id )
		);
	}

	/**
	 * Response body for a post.
	 *
	 * @param int    $post_id Post ID.
	 * @param string $uuid    Article UUID.
	 * @param bool   $created Whether this request created it.
	 */
	private static function post_response( int $post_id, string $uuid, bool $created ): WP_REST_Response {
		clean_post_cache( $post_id );
		$post       = get_post( $post_id );
		$categories = wp_get_post_categories( $post_id );
		$date_gmt   = ( $post && '0000-00-00 00:00:00' !== $post->post_date_gmt ) ? str_replace( ' ', 'T', $post->post_date_gmt ) . 'Z' : null;
		$response   = new WP_REST_Response(
			array(
				'id'           => $post_id,
				'link'         => (string) get_permalink( $post_id ),
				'status'       => $post ? $post->post_status : null,
				'slug'         => ( $post && '' !== $post->post_name ) ? $post->post_name : null,
				'date_gmt'     => $date_gmt,
				'category_ids' => array_map( 'intval', is_array( $categories ) ? $categories : array() ),
				'article_uuid' => $uuid,
				'created'      => $created,
				'site'         => array_merge( self::readback( $post_id, $post ), Inkpress_Media::readback( $post_id, $uuid ) ),
			),
			$created ? 201 : 200
		);
		return $response;
	}
}
