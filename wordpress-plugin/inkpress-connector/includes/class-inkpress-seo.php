<?php
/**
 * SEO fields of Inkpress posts: the meta description and focus keyword go into the storage of
 * whichever SEO plugin is active (Yoast SEO, Rank Math, All in One SEO, SEOPress, The SEO
 * Framework), as each documents it; with none active, the plugin prints the meta description
 * itself. JSON-LD (Article, and FAQPage when the post has a FAQ) is printed for every Inkpress
 * post, or added to the graph of Yoast SEO / Rank Math where they are active.
 *
 * @package InkpressConnector
 */

defined( 'ABSPATH' ) || exit;

/**
 * SEO adapters and head output.
 */
final class Inkpress_Seo {

	public const META_DESCRIPTION = '_inkpress_meta_description';
	public const META_FOCUS       = '_inkpress_focus_keyword';
	public const META_LANGUAGE    = '_inkpress_language';
	public const META_FAQ         = '_inkpress_faq';
	public const META_CITATIONS   = '_inkpress_citations';

	/** Where each SEO plugin keeps a post's description and focus keyword (null: it has none). */
	private const POST_META = array(
		'yoast'             => array( '_yoast_wpseo_metadesc', '_yoast_wpseo_focuskw' ),
		'rank_math'         => array( 'rank_math_description', 'rank_math_focus_keyword' ),
		'aioseo'            => array( '_aioseo_description', '_aioseo_keyphrases' ),
		'seopress'          => array( '_seopress_titles_desc', '_seopress_analysis_target_kw' ),
		'the_seo_framework' => array( '_genesis_description', null ),
	);

	/**
	 * Hooks.
	 */
	public static function init(): void {
		add_action( 'wp_head', array( __CLASS__, 'print_head' ), 1 );
		add_filter( 'wpseo_schema_graph_pieces', array( __CLASS__, 'yoast_pieces' ), 11, 2 );
		add_filter( 'rank_math/json_ld', array( __CLASS__, 'rank_math_json_ld' ), 99, 2 );
	}

	/**
	 * The active SEO plugin, or `inkpress` when there is none.
	 */
	public static function adapter(): string {
		if ( defined( 'WPSEO_VERSION' ) ) {
			return 'yoast';
		}
		if ( defined( 'RANK_MATH_VERSION' ) || class_exists( 'RankMath' ) ) {
			return 'rank_math';
		}
		if ( defined( 'AIOSEO_VERSION' ) || function_exists( 'aioseo' ) ) {
			return 'aioseo';
		}
		if ( defined( 'SEOPRESS_VERSION' ) ) {
			return 'seopress';
		}
		if ( defined( 'THE_SEO_FRAMEWORK_VERSION' ) || function_exists( 'the_seo_framework' ) ) {
			return 'the_seo_framework';
		}
		return 'inkpress';
	}

	/**
	 * Who prints the JSON-LD of Inkpress posts: Yoast SEO and Rank Math get our pieces in their
	 * own graph; otherwise the plugin prints its own.
	 */
	public static function schema_by(): string {
		$adapter = self::adapter();
		return in_array( $adapter, array( 'yoast', 'rank_math' ), true ) ? $adapter : 'inkpress';
	}

	/**
	 * Stores the SEO fields: Inkpress's own copy, then the active SEO plugin's storage.
	 *
	 * @param int    $post_id     Post.
	 * @param string $description Meta description ('' for none).
	 * @param string $focus       Focus keyword ('' for none).
	 * @param string $language    Language code.
	 * @param array  $faq         List of array{question, answer}.
	 */
	public static function store( int $post_id, string $description, string $focus, string $language, array $faq ): void {
		self::put_meta( $post_id, self::META_DESCRIPTION, $description );
		self::put_meta( $post_id, self::META_FOCUS, $focus );
		self::put_meta( $post_id, self::META_LANGUAGE, $language );
		if ( array() !== $faq ) {
			update_post_meta( $post_id, self::META_FAQ, wp_slash( $faq ) );
		}

		$adapter = self::adapter();
		if ( 'inkpress' === $adapter ) {
			return;
		}
		if ( 'aioseo' === $adapter && self::aioseo_table() ) {
			self::aioseo_write( $post_id, $description, $focus );
			return;
		}
		[ $description_key, $focus_key ] = self::POST_META[ $adapter ];
		self::put_meta( $post_id, $description_key, $description );
		if ( null !== $focus_key ) {
			self::put_meta( $post_id, $focus_key, 'aioseo' === $adapter ? self::aioseo_keyphrases( $focus ) : $focus );
		}
	}

	/**
	 * What the site kept: which adapter holds the description and focus keyword, and whether
	 * they are there as sent; and the JSON-LD that the post page carries.
	 *
	 * @param int $post_id Post.
	 */
	public static function readback( int $post_id ): array {
		$description = (string) get_post_meta( $post_id, self::META_DESCRIPTION, true );
		$focus       = (string) get_post_meta( $post_id, self::META_FOCUS, true );
		$adapter     = self::adapter();
		if ( 'inkpress' === $adapter ) {
			$kept_description = $description;
			$kept_focus       = $focus;
		} elseif ( 'aioseo' === $adapter && self::aioseo_table() ) {
			[ $kept_description, $kept_focus ] = self::aioseo_read( $post_id );
		} else {
			[ $description_key, $focus_key ] = self::POST_META[ $adapter ];
			$kept_description                = (string) get_post_meta( $post_id, $description_key, true );
			$kept_focus                      = null === $focus_key ? '' : (string) get_post_meta( $post_id, $focus_key, true );
			if ( 'aioseo' === $adapter ) {
				$kept_focus = self::aioseo_focus_of( $kept_focus );
			}
		}
		$faq = self::faq( $post_id );
		return array(
			'seo'           => array(
				'adapter'          => $adapter,
				'meta_description' => '' !== $description && $kept_description === $description,
				'focus_keyword'    => '' !== $focus && $kept_focus === $focus,
			),
			'schema'        => array(
				'printed_by' => self::schema_by(),
				'types'      => array() === $faq ? array( 'Article' ) : array( 'Article', 'FAQPage' ),
			),
			'faq_questions' => count( $faq ),
		);
	}

	/**
	 * The post's focus keyword as the active SEO plugin holds it (Inkpress's own copy with none,
	 * or when the SEO plugin has none for the post).
	 *
	 * @param int $post_id Post.
	 */
	public static function focus_keyword( int $post_id ): string {
		$adapter = self::adapter();
		$focus   = '';
		if ( 'aioseo' === $adapter && self::aioseo_table() ) {
			$focus = self::aioseo_read( $post_id )[1];
		} elseif ( 'inkpress' !== $adapter && null !== self::POST_META[ $adapter ][1] ) {
			$focus = (string) get_post_meta( $post_id, self::POST_META[ $adapter ][1], true );
			if ( 'aioseo' === $adapter ) {
				$focus = self::aioseo_focus_of( $focus );
			}
		}
		if ( '' === trim( $focus ) ) {
			$focus = (string) get_post_meta( $post_id, self::META_FOCUS, true );
		}
		return self::text( $focus );
	}

	/**
	 * Whether the active SEO plugin marks the post noindex (each plugin's own post setting).
	 *
	 * @param int $post_id Post.
	 */
	public static function is_noindex( int $post_id ): bool {
		switch ( self::adapter() ) {
			case 'yoast':
				return '1' === (string) get_post_meta( $post_id, '_yoast_wpseo_meta-robots-noindex', true );
			case 'rank_math':
				$robots = get_post_meta( $post_id, 'rank_math_robots', true );
				return is_array( $robots ) && in_array( 'noindex', $robots, true );
			case 'aioseo':
				if ( self::aioseo_table() ) {
					global $wpdb;
					$table = $wpdb->prefix . 'aioseo_posts';
					return '1' === (string) $wpdb->get_var( $wpdb->prepare( "SELECT robots_noindex FROM {$table} WHERE post_id = %d AND robots_default = 0 LIMIT 1", $post_id ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
				}
				return false;
			case 'seopress':
				return 'yes' === (string) get_post_meta( $post_id, '_seopress_robots_index', true );
			case 'the_seo_framework':
				return '1' === (string) get_post_meta( $post_id, '_genesis_noindex', true );
			default:
				return false;
		}
	}

	/**
	 * The FAQ stored for a post.
	 *
	 * @param int $post_id Post.
	 */
	public static function faq( int $post_id ): array {
		$faq = get_post_meta( $post_id, self::META_FAQ, true );
		return is_array( $faq ) ? array_values( $faq ) : array();
	}

	/**
	 * Meta description (when no SEO plugin prints one) and JSON-LD (when no SEO plugin's graph
	 * carries it) for Inkpress posts.
	 */
	public static function print_head(): void {
		$post = self::current_inkpress_post();
		if ( null === $post ) {
			return;
		}
		$description = (string) get_post_meta( $post->ID, self::META_DESCRIPTION, true );
		if ( 'inkpress' === self::adapter() && '' !== $description ) {
			echo '<meta name="description" content="' . esc_attr( $description ) . '" />' . "\n";
		}
		if ( 'inkpress' === self::schema_by() ) {
			$graph = array( self::article_node( $post ) );
			$faq   = self::faq_node( $post );
			if ( null !== $faq ) {
				$graph[] = $faq;
			}
			echo '<script type="application/ld+json" class="inkpress-schema">'
				. self::json(
					array(
						'@context' => 'https://schema.org',
						'@graph'   => $graph,
					)
				)
				. "</script>\n";
		}
	}

	/**
	 * Yoast SEO: our FAQPage as one more piece of its graph (its own Article stays).
	 *
	 * @param array $pieces  Graph pieces.
	 * @param mixed $context Yoast's context.
	 */
	public static function yoast_pieces( $pieces, $context ) {
		$post = self::current_inkpress_post();
		if ( null === $post || array() === self::faq( $post->ID ) || ! is_array( $pieces ) ) {
			return $pieces;
		}
		require_once __DIR__ . '/class-inkpress-yoast-faq-piece.php';
		$pieces[] = new Inkpress_Yoast_Faq_Piece( $context, self::faq_node( $post ) );
		return $pieces;
	}

	/**
	 * Rank Math: our FAQPage in its graph, and our Article when it has none.
	 *
	 * @param array $data   Graph entities by key.
	 * @param mixed $jsonld Rank Math's JsonLD instance.
	 */
	public static function rank_math_json_ld( $data, $jsonld ) {
		unset( $jsonld );
		$post = self::current_inkpress_post();
		if ( null === $post || ! is_array( $data ) ) {
			return $data;
		}
		$has_article = false;
		foreach ( $data as $entity ) {
			$types = is_array( $entity ) ? (array) ( $entity['@type'] ?? array() ) : array();
			if ( array_intersect( $types, array( 'Article', 'BlogPosting', 'NewsArticle' ) ) ) {
				$has_article = true;
			}
		}
		if ( ! $has_article ) {
			$data['inkpressArticle'] = self::article_node( $post );
		}
		$faq = self::faq_node( $post );
		if ( null !== $faq ) {
			$data['inkpressFaq'] = $faq;
		}
		return $data;
	}

	/**
	 * The sources a post cites (those that kept their link), for the Article's `citation`.
	 *
	 * @param int   $post_id Post.
	 * @param array $items   List of array{title, url: ?string}.
	 */
	public static function store_citations( int $post_id, array $items ): void {
		$citations = array();
		foreach ( $items as $item ) {
			if ( null !== $item['url'] ) {
				$citations[] = array(
					'title' => $item['title'],
					'url'   => $item['url'],
				);
			}
		}
		if ( array() !== $citations ) {
			update_post_meta( $post_id, self::META_CITATIONS, wp_slash( $citations ) );
		}
	}

	/**
	 * The schema.org Article of a post.
	 *
	 * @param WP_Post $post Post.
	 */
	public static function article_node( WP_Post $post ): array {
		$url      = (string) get_permalink( $post );
		$focus    = (string) get_post_meta( $post->ID, self::META_FOCUS, true );
		$tags     = wp_get_post_tags( $post->ID, array( 'fields' => 'names' ) );
		$tags     = array_map( array( self::class, 'text' ), is_array( $tags ) ? $tags : array() );
		$keywords = array_values( array_unique( array_filter( array_merge( array( $focus ), $tags ) ) ) );
		$author   = get_userdata( (int) $post->post_author );
		$node     = array(
			'@type'            => 'Article',
			'@id'              => $url . '#article',
			'headline'         => self::text( get_post_field( 'post_title', $post, 'raw' ) ),
			'description'      => (string) get_post_meta( $post->ID, self::META_DESCRIPTION, true ),
			'datePublished'    => self::iso_date( $post->post_date_gmt ),
			'dateModified'     => self::iso_date( $post->post_modified_gmt ),
			'inLanguage'       => (string) get_post_meta( $post->ID, self::META_LANGUAGE, true ),
			'keywords'         => implode( ', ', $keywords ),
			'mainEntityOfPage' => $url,
		);
		if ( $author ) {
			$node['author'] = array(
				'@type' => 'Person',
				'name'  => self::text( $author->display_name ),
			);
		}
		$citations = get_post_meta( $post->ID, self::META_CITATIONS, true );
		if ( is_array( $citations ) && array() !== $citations ) {
			$node['citation'] = array_values(
				array_map(
					static function ( $citation ) {
						return array(
							'@type' => 'CreativeWork',
							'name'  => (string) ( $citation['title'] ?? '' ),
							'url'   => esc_url_raw( (string) ( $citation['url'] ?? '' ) ),
						);
					},
					$citations
				)
			);
		}
		return $node;
	}

	/**
	 * The schema.org FAQPage of a post, or null without a FAQ.
	 *
	 * @param WP_Post $post Post.
	 */
	public static function faq_node( WP_Post $post ): ?array {
		$faq = self::faq( $post->ID );
		if ( array() === $faq ) {
			return null;
		}
		return array(
			'@type'      => 'FAQPage',
			'@id'        => get_permalink( $post ) . '#faq',
			'mainEntity' => array_map(
				static function ( $item ) {
					return array(
						'@type'          => 'Question',
						'name'           => (string) $item['question'],
						'acceptedAnswer' => array(
							'@type' => 'Answer',
							'text'  => (string) $item['answer'],
						),
					);
				},
				$faq
			),
		);
	}

	/**
	 * Text for JSON-LD, which is not HTML: no tags, entities decoded once (WordPress keeps titles,
	 * term names and display names HTML-escaped, and `get_the_title` adds texturised entities).
	 *
	 * @param mixed $text Stored text.
	 */
	public static function text( $text ): string {
		return html_entity_decode( wp_strip_all_tags( (string) $text ), ENT_QUOTES | ENT_HTML5, 'UTF-8' );
	}

	/**
	 * JSON safe inside a script element.
	 *
	 * @param mixed $data Data.
	 */
	public static function json( $data ): string {
		return (string) wp_json_encode( $data, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_HEX_TAG | JSON_HEX_AMP );
	}

	/**
	 * The post of a singular page, when Inkpress made it.
	 */
	private static function current_inkpress_post(): ?WP_Post {
		if ( ! is_singular() ) {
			return null;
		}
		$post = get_queried_object();
		if ( ! $post instanceof WP_Post || ! Inkpress_Rest::is_inkpress_post( $post->ID ) ) {
			return null;
		}
		return $post;
	}

	/**
	 * ISO 8601 (UTC) of a GMT MySQL date.
	 *
	 * @param string $gmt Date.
	 */
	private static function iso_date( string $gmt ): string {
		return '0000-00-00 00:00:00' === $gmt ? '' : str_replace( ' ', 'T', $gmt ) . '+00:00';
	}

	/**
	 * Sets or clears one post meta value.
	 *
	 * @param int    $post_id Post.
	 * @param string $key     Key.
	 * @param string $value   Value ('' clears nothing and stores nothing).
	 */
	private static function put_meta( int $post_id, string $key, string $value ): void {
		if ( '' !== $value ) {
			update_post_meta( $post_id, $key, wp_slash( $value ) );
		}
	}

	/**
	 * All in One SEO 4 keeps post SEO data in its own table.
	 */
	private static function aioseo_table(): bool {
		global $wpdb;
		$table = $wpdb->prefix . 'aioseo_posts';
		return $table === $wpdb->get_var( $wpdb->prepare( 'SHOW TABLES LIKE %s', $wpdb->esc_like( $table ) ) );
	}

	/**
	 * AIOSEO's keyphrases JSON with a focus keyphrase.
	 *
	 * @param string $focus Focus keyword.
	 */
	private static function aioseo_keyphrases( string $focus ): string {
		return '' === $focus ? '' : (string) wp_json_encode(
			array(
				'focus'      => array( 'keyphrase' => $focus ),
				'additional' => array(),
			)
		);
	}

	/**
	 * The focus keyphrase of AIOSEO's keyphrases JSON.
	 *
	 * @param string $json JSON.
	 */
	private static function aioseo_focus_of( string $json ): string {
		$data = json_decode( $json, true );
		return is_array( $data ) && isset( $data['focus']['keyphrase'] ) ? (string) $data['focus']['keyphrase'] : '';
	}

	/**
	 * Inserts or updates the post's row of AIOSEO's table.
	 *
	 * @param int    $post_id     Post.
	 * @param string $description Description.
	 * @param string $focus       Focus keyword.
	 */
	private static function aioseo_write( int $post_id, string $description, string $focus ): void {
		global $wpdb;
		$table = $wpdb->prefix . 'aioseo_posts';
		$now   = current_time( 'mysql', true );
		$row   = array(
			'description' => $description,
			'keyphrases'  => self::aioseo_keyphrases( $focus ),
			'updated'     => $now,
		);
		$id = $wpdb->get_var( $wpdb->prepare( "SELECT id FROM {$table} WHERE post_id = %d LIMIT 1", $post_id ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		if ( null === $id ) {
			$wpdb->insert( $table, array_merge( $row, array( 'post_id' => $post_id, 'created' => $now ) ) );
		} else {
			$wpdb->update( $table, $row, array( 'id' => (int) $id ) );
		}
	}

	/**
	 * Description and focus keyphrase of the post's row of AIOSEO's table.
	 *
	 * @param int $post_id Post.
	 * @return array{0: string, 1: string}
	 */
	private static function aioseo_read( int $post_id ): array {
		global $wpdb;
		$table = $wpdb->prefix . 'aioseo_posts';
		$row   = $wpdb->get_row( $wpdb->prepare( "SELECT description, keyphrases FROM {$table} WHERE post_id = %d LIMIT 1", $post_id ), ARRAY_A ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		if ( ! is_array( $row ) ) {
			return array( '', '' );
		}
		return array( (string) $row['description'], self::aioseo_focus_of( (string) $row['keyphrases'] ) );
	}
}
