<?php
/**
 * All in One SEO: a post's SEO title, description and focus keyphrase go through its own model,
 * `AIOSEO\Plugin\Common\Models\Post::savePost()`, so that its defaults (`twitter_use_og`...), its
 * sanitising and its hooks (`aioseo_save_post`, `aioseo_insert_post`) apply as when an editor
 * saves the post. Where that class is not there (an older or unusual install) the row of its
 * `aioseo_posts` table is written directly, and without the table its post meta. Whether the
 * table exists is looked up once per AIOSEO version and kept in an option, never per request.
 *
 * @package InkpressConnector
 */

defined( 'ABSPATH' ) || exit;

/**
 * AIOSEO storage.
 */
final class Inkpress_Aioseo {

	public const MODEL = 'AIOSEO\\Plugin\\Common\\Models\\Post';

	/** Option: array{version: string, exists: bool}, whether `{prefix}aioseo_posts` exists. */
	public const TABLE_OPTION = 'inkpress_connector_aioseo_table';

	/** Post meta AIOSEO also keeps (and reads where it has no row). */
	private const META_TITLE       = '_aioseo_title';
	private const META_DESCRIPTION = '_aioseo_description';
	private const META_KEYPHRASES  = '_aioseo_keyphrases';

	/**
	 * Writes the fields ('' leaves a field as it is).
	 *
	 * @param int    $post_id     Post.
	 * @param string $title       SEO title.
	 * @param string $description Description.
	 * @param string $focus       Focus keyphrase.
	 */
	public static function write( int $post_id, string $title, string $description, string $focus ): void {
		$data = array();
		if ( '' !== $title ) {
			$data['title'] = $title;
		}
		if ( '' !== $description ) {
			$data['description'] = $description;
		}
		if ( '' !== $focus ) {
			$data['keyphrases'] = self::keyphrases( $focus );
		}
		if ( array() === $data ) {
			return;
		}
		if ( self::has_model() ) {
			try {
				call_user_func( array( self::MODEL, 'savePost' ), $post_id, $data );
				return;
			} catch ( Throwable $error ) {
				// Fall back to the table or the post meta below.
				unset( $error );
			}
		}
		if ( self::has_table() ) {
			self::write_row( $post_id, $data );
			return;
		}
		foreach ( array(
			'title'       => self::META_TITLE,
			'description' => self::META_DESCRIPTION,
		) as $field => $key ) {
			if ( isset( $data[ $field ] ) ) {
				update_post_meta( $post_id, $key, wp_slash( $data[ $field ] ) );
			}
		}
		if ( isset( $data['keyphrases'] ) ) {
			update_post_meta( $post_id, self::META_KEYPHRASES, wp_slash( (string) wp_json_encode( $data['keyphrases'] ) ) );
		}
	}

	/**
	 * What AIOSEO holds for the post: title, description, focus keyphrase and robots noindex.
	 *
	 * @param int $post_id Post.
	 * @return array{title: string, description: string, focus: string, noindex: bool}
	 */
	public static function read( int $post_id ): array {
		$none = array(
			'title'       => '',
			'description' => '',
			'focus'       => '',
			'noindex'     => false,
		);
		if ( self::has_model() && is_callable( array( self::MODEL, 'getPost' ) ) ) {
			try {
				$post = call_user_func( array( self::MODEL, 'getPost' ), $post_id );
				if ( is_object( $post ) ) {
					return array(
						'title'       => (string) ( $post->title ?? '' ),
						'description' => (string) ( $post->description ?? '' ),
						'focus'       => self::focus_of( $post->keyphrases ?? null ),
						'noindex'     => empty( $post->robots_default ) && ! empty( $post->robots_noindex ),
					);
				}
			} catch ( Throwable $error ) {
				unset( $error );
			}
		}
		if ( self::has_table() ) {
			global $wpdb;
			$table = $wpdb->prefix . 'aioseo_posts';
			$row   = $wpdb->get_row( $wpdb->prepare( "SELECT * FROM {$table} WHERE post_id = %d LIMIT 1", $post_id ), ARRAY_A ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
			if ( ! is_array( $row ) ) {
				return $none;
			}
			return array(
				'title'       => (string) ( $row['title'] ?? '' ),
				'description' => (string) ( $row['description'] ?? '' ),
				'focus'       => self::focus_of( $row['keyphrases'] ?? null ),
				'noindex'     => isset( $row['robots_default'], $row['robots_noindex'] ) && '0' === (string) $row['robots_default'] && '1' === (string) $row['robots_noindex'],
			);
		}
		return array(
			'title'       => (string) get_post_meta( $post_id, self::META_TITLE, true ),
			'description' => (string) get_post_meta( $post_id, self::META_DESCRIPTION, true ),
			'focus'       => self::focus_of( get_post_meta( $post_id, self::META_KEYPHRASES, true ) ),
			'noindex'     => false,
		);
	}

	/**
	 * Whether AIOSEO's schema output is turned off (its `aioseo_schema_disable` filter or its
	 * setting, as its own Schema helpers read them).
	 */
	public static function schema_disabled(): bool {
		if ( function_exists( 'aioseo' ) ) {
			try {
				$aioseo = aioseo();
				if ( isset( $aioseo->schema->helpers ) && is_callable( array( $aioseo->schema->helpers, 'isEnabled' ) ) ) {
					return ! $aioseo->schema->helpers->isEnabled();
				}
			} catch ( Throwable $error ) {
				unset( $error );
			}
		}
		return (bool) apply_filters( 'aioseo_schema_disable', false ); // phpcs:ignore WordPress.NamingConventions.PrefixAllGlobals.NonPrefixedHooknameFound -- AIOSEO's hook.
	}

	/**
	 * Whether AIOSEO's post model is there.
	 */
	private static function has_model(): bool {
		return class_exists( self::MODEL ) && is_callable( array( self::MODEL, 'savePost' ) );
	}

	/**
	 * Whether AIOSEO's table exists: looked up (SHOW TABLES) once per AIOSEO version, then read
	 * from an autoloaded option; a missing table is looked up again after an hour at most.
	 */
	private static function has_table(): bool {
		static $exists = null;
		if ( null !== $exists ) {
			return $exists;
		}
		$version = defined( 'AIOSEO_VERSION' ) ? (string) AIOSEO_VERSION : '';
		$known   = get_option( self::TABLE_OPTION );
		if ( is_array( $known ) && ( $known['version'] ?? null ) === $version && isset( $known['exists'], $known['checked'] )
			&& ( $known['exists'] || time() - (int) $known['checked'] < HOUR_IN_SECONDS ) ) {
			$exists = (bool) $known['exists'];
			return $exists;
		}
		global $wpdb;
		$table  = $wpdb->prefix . 'aioseo_posts';
		$exists = $table === $wpdb->get_var( $wpdb->prepare( 'SHOW TABLES LIKE %s', $wpdb->esc_like( $table ) ) );
		update_option(
			self::TABLE_OPTION,
			array(
				'version' => $version,
				'exists'  => $exists,
				'checked' => time(),
			),
			true
		);
		return $exists;
	}

	/**
	 * AIOSEO's keyphrases with a focus keyphrase.
	 *
	 * @param string $focus Focus keyphrase.
	 */
	private static function keyphrases( string $focus ): array {
		return array(
			'focus'      => array( 'keyphrase' => $focus ),
			'additional' => array(),
		);
	}

	/**
	 * The focus keyphrase of AIOSEO's keyphrases (JSON, object or array).
	 *
	 * @param mixed $keyphrases Keyphrases.
	 */
	private static function focus_of( $keyphrases ): string {
		if ( is_string( $keyphrases ) ) {
			$keyphrases = json_decode( $keyphrases, true );
		}
		if ( is_object( $keyphrases ) ) {
			$keyphrases = json_decode( (string) wp_json_encode( $keyphrases ), true );
		}
		return is_array( $keyphrases ) && isset( $keyphrases['focus']['keyphrase'] ) ? (string) $keyphrases['focus']['keyphrase'] : '';
	}

	/**
	 * Inserts or updates the post's row of AIOSEO's table (without its model).
	 *
	 * @param int   $post_id Post.
	 * @param array $data    Fields: title, description, keyphrases.
	 */
	private static function write_row( int $post_id, array $data ): void {
		global $wpdb;
		$table = $wpdb->prefix . 'aioseo_posts';
		$now   = current_time( 'mysql', true );
		$row   = array( 'updated' => $now );
		foreach ( array( 'title', 'description' ) as $field ) {
			if ( isset( $data[ $field ] ) ) {
				$row[ $field ] = $data[ $field ];
			}
		}
		if ( isset( $data['keyphrases'] ) ) {
			$row['keyphrases'] = (string) wp_json_encode( $data['keyphrases'] );
		}
		$id = $wpdb->get_var( $wpdb->prepare( "SELECT id FROM {$table} WHERE post_id = %d LIMIT 1", $post_id ) ); // phpcs:ignore WordPress.DB.PreparedSQL.InterpolatedNotPrepared
		if ( null === $id ) {
			$wpdb->insert(
				$table,
				array_merge(
					$row,
					array(
						'post_id' => $post_id,
						'created' => $now,
					)
				)
			);
		} else {
			$wpdb->update( $table, $row, array( 'id' => (int) $id ) );
		}
	}
}
