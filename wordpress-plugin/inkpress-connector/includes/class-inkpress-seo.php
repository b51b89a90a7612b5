<?php
/**
 * SEO fields of Inkpress posts: the SEO title (the article title, at most 60 characters, cut at a
 * word), the meta description and the focus keyword go into the storage of whichever SEO plugin
 * is active, as each documents it (Yoast SEO, Rank Math, All in One SEO through its own model,
 * SEOPress, The SEO Framework, SiteSEO, Slim SEO, SmartCrawl, Jetpack's SEO tools; Squirrly SEO
 * is detected and left to itself); with none active, the plugin prints the meta description
 * itself. JSON-LD (Article, and FAQPage when the post has a FAQ) is printed for every Inkpress
 * post, or its FAQPage added to the graph of Yoast SEO, Rank Math or All in One SEO where one of
 * them prints the Article; with that plugin's schema output turned off, nothing is added.
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

	public const META_SEO_TITLE   = '_inkpress_seo_title';

	/** Longest SEO title written (what search results show of a title). */
	public const SEO_TITLE_MAX = 60;

	/**
	 * Where each SEO plugin keeps a post's description, focus keyword and SEO title (null: it has
	 * none; `key[field]`: a field of an array kept under key). All in One SEO is written through
	 * its model (Inkpress_Aioseo); its post meta here is the fallback without it.
	 */
	private const POST_META = array(
		'yoast'             => array( '_yoast_wpseo_metadesc', '_yoast_wpseo_focuskw', '_yoast_wpseo_title' ),
		'rank_math'         => array( 'rank_math_description', 'rank_math_focus_keyword', 'rank_math_title' ),
		'aioseo'            => array( '_aioseo_description', '_aioseo_keyphrases', '_aioseo_title' ),
		'seopress'          => array( '_seopress_titles_desc', '_seopress_analysis_target_kw', '_seopress_titles_title' ),
		'the_seo_framework' => array( '_genesis_description', null, '_genesis_title' ),
		'siteseo'           => array( '_siteseo_titles_desc', '_siteseo_analysis_target_kw', '_siteseo_titles_title' ),
		'slim_seo'          => array( 'slim_seo[description]', null, 'slim_seo[title]' ),
		'smartcrawl'        => array( '_wds_metadesc', '_wds_focus-keywords', '_wds_title' ),
		'jetpack'           => array( 'advanced_seo_description', null, 'jetpack_seo_html_title' ),
		'squirrly'          => array( null, null, null ),
	);

	/** SEO plugins whose focus keyword field is a comma-separated list of keywords. */
	private const KEYWORD_LISTS = array( 'rank_math', 'seopress', 'siteseo', 'smartcrawl' );

	/**
	 * Hooks.
	 */
	public static function init(): void {
		add_action( 'wp_head', array( __CLASS__, 'print_head' ), 1 );
		add_filter( 'wpseo_schema_graph_pieces', array( __CLASS__, 'yoast_pieces' ), 11, 2 );
		add_filter( 'rank_math/json_ld', array( __CLASS__, 'rank_math_json_ld' ), 99, 2 );
		add_filter( 'aioseo_schema_output', array( __CLASS__, 'aioseo_graphs' ), 10, 1 );
	}

	/**
	 * The active SEO plugin, or `inkpress` when there is none (the first found when several are).
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
		if ( defined( 'SITESEO_VERSION' ) ) {
			return 'siteseo';
		}
		if ( defined( 'SLIM_SEO_VER' ) ) {
			return 'slim_seo';
		}
		if ( defined( 'SMARTCRAWL_VERSION' ) || class_exists( 'Smartcrawl_Loader' ) ) {
			return 'smartcrawl';
		}
		if ( defined( 'SQ_VERSION' ) ) {
			return 'squirrly';
		}
		if ( class_exists( 'Jetpack' ) && is_callable( array( 'Jetpack', 'is_module_active' ) ) && Jetpack::is_module_active( 'seo-tools' ) ) {
			return 'jetpack';
		}
		return 'inkpress';
	}

	/**
	 * Who prints the JSON-LD of Inkpress posts: Yoast SEO, Rank Math and All in One SEO get our
	 * FAQPage (and Rank Math our Article when it has none) in their own graph; with their schema
	 * output turned off, nobody (null); otherwise the plugin prints its own.
	 */
	public static function schema_by(): ?string {
		$adapter = self::adapter();
		if ( ! in_array( $adapter, array( 'yoast', 'rank_math', 'aioseo' ), true ) ) {
			return 'inkpress';
		}
		return self::host_schema_off( $adapter ) ? null : $adapter;
	}

	/**
	 * Whether the SEO plugin's own schema output is turned off: Yoast SEO by its
	 * `wpseo_json_ld_output` filter, Rank Math by its Schema module (or its legacy
	 * `rank_math/json_ld/disable` filter), All in One SEO by its setting or `aioseo_schema_disable`.
	 *
	 * @param string $adapter Adapter.
	 */
	private static function host_schema_off( string $adapter ): bool {
		// phpcs:disable WordPress.NamingConventions.PrefixAllGlobals.NonPrefixedHooknameFound -- their hooks.
		switch ( $adapter ) {
			case 'yoast':
				// As Yoast itself asks (WooCommerce SEO): false or empty turns its output off.
				try {
					$output = apply_filters( 'wpseo_json_ld_output', true, '' );
				} catch ( Throwable $error ) {
					return false; // A callback that only takes Yoast's data: the output is on.
				}
				return false === $output || array() === $output || null === $output;
			case 'rank_math':
				if ( apply_filters( 'rank_math/json_ld/disable', false ) ) {
					return true;
				}
				return class_exists( 'RankMath\Helper' ) && is_callable( array( 'RankMath\Helper', 'is_module_active' ) )
					&& ! call_user_func( array( 'RankMath\Helper', 'is_module_active' ), 'rich-snippet' );
			case 'aioseo':
				return Inkpress_Aioseo::schema_disabled();
			default:
				return false;
		}
		// phpcs:enable
	}

	/**
	 * The SEO title of an article: its title as plain text, at most SEO_TITLE_MAX characters, cut
	 * after the last whole word that fits (a single longer word is cut at the limit).
	 *
	 * @param string $title Title.
	 */
	public static function seo_title( string $title ): string {
		$title = trim( (string) preg_replace( '/\s+/u', ' ', self::text( sanitize_text_field( $title ) ) ) );
		if ( mb_strlen( $title, 'UTF-8' ) <= self::SEO_TITLE_MAX ) {
			return $title;
		}
		$head  = mb_substr( $title, 0, self::SEO_TITLE_MAX + 1, 'UTF-8' );
		$space = mb_strrpos( $head, ' ', 0, 'UTF-8' );
		$cut   = false !== $space && $space > 0 ? mb_substr( $head, 0, $space, 'UTF-8' ) : mb_substr( $title, 0, self::SEO_TITLE_MAX, 'UTF-8' );
		$cut   = (string) preg_replace( '/[\s,;:\-\x{2013}\x{2014}]+$/u', '', $cut );
		return '' === $cut ? mb_substr( $title, 0, self::SEO_TITLE_MAX, 'UTF-8' ) : $cut;
	}

	/**
	 * The focus keyword as the SEO plugin takes it: where its field is a comma-separated list
	 * (Rank Math, SEOPress, SiteSEO, SmartCrawl), a comma would make several keywords of one, so
	 * each becomes a space.
	 *
	 * @param string $adapter Adapter.
	 * @param string $focus   Focus keyword.
	 */
	public static function focus_for( string $adapter, string $focus ): string {
		if ( ! in_array( $adapter, self::KEYWORD_LISTS, true ) ) {
			return $focus;
		}
		return trim( (string) preg_replace( '/\s+/u', ' ', str_replace( array( ',', "\u{FF0C}", "\u{3001}" ), ' ', $focus ) ) );
	}

	/**
	 * Stores the SEO fields: Inkpress's own copy, then the active SEO plugin's storage.
	 *
	 * @param int    $post_id     Post.
	 * @param string $description Meta description ('' for none).
	 * @param string $focus       Focus keyword ('' for none).
	 * @param string $language    Language code.
	 * @param array  $faq         List of array{question, answer}.
	 * @param string $title       Article title (the SEO title is made of it; '' for none).
	 */
	public static function store( int $post_id, string $description, string $focus, string $language, array $faq, string $title = '' ): void {
		$seo_title = self::seo_title( $title );
		self::put_meta( $post_id, self::META_DESCRIPTION, $description );
		self::put_meta( $post_id, self::META_FOCUS, $focus );
		self::put_meta( $post_id, self::META_LANGUAGE, $language );
		self::put_meta( $post_id, self::META_SEO_TITLE, $seo_title );
		if ( array() !== $faq ) {
			update_post_meta( $post_id, self::META_FAQ, wp_slash( $faq ) );
		}

		$adapter = self::adapter();
		if ( 'inkpress' === $adapter ) {
			return;
		}
		$focus = self::focus_for( $adapter, $focus );
		if ( 'aioseo' === $adapter ) {
			Inkpress_Aioseo::write( $post_id, $seo_title, $description, $focus );
			return;
		}
		[ $description_key, $focus_key, $title_key ] = self::POST_META[ $adapter ];
		foreach ( array(
			array( $description_key, $description ),
			array( $focus_key, $focus ),
			array( $title_key, $seo_title ),
		) as [ $key, $value ] ) {
			if ( null !== $key ) {
				self::put_meta( $post_id, $key, $value );
			}
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
		$seo_title   = (string) get_post_meta( $post_id, self::META_SEO_TITLE, true );
		$adapter     = self::adapter();
		$kept        = self::kept( $adapter, $post_id );
		$focus       = self::focus_for( $adapter, $focus );
		$faq         = self::faq( $post_id );
		$printed_by  = self::schema_by();
		return array(
			'seo'           => array(
				'adapter'          => $adapter,
				'meta_description' => '' !== $description && $kept['description'] === $description,
				'focus_keyword'    => '' !== $focus && $kept['focus'] === $focus,
				// With no SEO plugin, WordPress prints the post's own title.
				'title'            => 'inkpress' !== $adapter && '' !== $seo_title && $kept['title'] === $seo_title,
			),
			'schema'        => array(
				'printed_by' => $printed_by,
				'types'      => null === $printed_by ? array() : ( array() === $faq ? array( 'Article' ) : array( 'Article', 'FAQPage' ) ),
			),
			'faq_questions' => count( $faq ),
		);
	}

	/**
	 * What the SEO plugin holds for the post (Inkpress's own copy with none).
	 *
	 * @param string $adapter Adapter.
	 * @param int    $post_id Post.
	 * @return array{description: string, focus: string, title: string}
	 */
	private static function kept( string $adapter, int $post_id ): array {
		if ( 'inkpress' === $adapter ) {
			return array(
				'description' => (string) get_post_meta( $post_id, self::META_DESCRIPTION, true ),
				'focus'       => (string) get_post_meta( $post_id, self::META_FOCUS, true ),
				'title'       => '',
			);
		}
		if ( 'aioseo' === $adapter ) {
			$held = Inkpress_Aioseo::read( $post_id );
			return array(
				'description' => $held['description'],
				'focus'       => $held['focus'],
				'title'       => $held['title'],
			);
		}
		[ $description_key, $focus_key, $title_key ] = self::POST_META[ $adapter ];
		return array(
			'description' => self::get_meta( $post_id, $description_key ),
			'focus'       => self::get_meta( $post_id, $focus_key ),
			'title'       => self::get_meta( $post_id, $title_key ),
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
		if ( 'aioseo' === $adapter ) {
			$focus = Inkpress_Aioseo::read( $post_id )['focus'];
		} elseif ( 'inkpress' !== $adapter ) {
			$focus = self::get_meta( $post_id, self::POST_META[ $adapter ][1] );
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
				return Inkpress_Aioseo::read( $post_id )['noindex'];
			case 'seopress':
				return 'yes' === (string) get_post_meta( $post_id, '_seopress_robots_index', true );
			case 'siteseo':
				return 'yes' === (string) get_post_meta( $post_id, '_siteseo_robots_index', true );
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
	 * All in One SEO: our FAQPage as one more graph of its schema (its own Article stays).
	 *
	 * @param array $graphs Graphs.
	 */
	public static function aioseo_graphs( $graphs ) {
		$post = self::current_inkpress_post();
		if ( null === $post || ! is_array( $graphs ) ) {
			return $graphs;
		}
		$faq = self::faq_node( $post );
		if ( null !== $faq ) {
			$graphs[] = $faq;
		}
		return $graphs;
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
	 * Sets one post meta value ('' stores nothing); `key[field]` sets a field of an array kept under key.
	 *
	 * @param int    $post_id Post.
	 * @param string $key     Key.
	 * @param string $value   Value.
	 */
	private static function put_meta( int $post_id, string $key, string $value ): void {
		if ( '' === $value ) {
			return;
		}
		if ( preg_match( '/^([^\[]+)\[([^\]]+)\]$/', $key, $m ) ) {
			$array          = get_post_meta( $post_id, $m[1], true );
			$array          = is_array( $array ) ? $array : array();
			$array[ $m[2] ] = $value;
			update_post_meta( $post_id, $m[1], wp_slash( $array ) );
			return;
		}
		update_post_meta( $post_id, $key, wp_slash( $value ) );
	}

	/**
	 * One post meta value as text ('' for none or a null key); `key[field]` reads a field of an array.
	 *
	 * @param int         $post_id Post.
	 * @param string|null $key     Key.
	 */
	private static function get_meta( int $post_id, ?string $key ): string {
		if ( null === $key ) {
			return '';
		}
		if ( preg_match( '/^([^\[]+)\[([^\]]+)\]$/', $key, $m ) ) {
			$array = get_post_meta( $post_id, $m[1], true );
			return is_array( $array ) && is_scalar( $array[ $m[2] ] ?? null ) ? (string) $array[ $m[2] ] : '';
		}
		$value = get_post_meta( $post_id, $key, true );
		return is_scalar( $value ) ? (string) $value : '';
	}
}
