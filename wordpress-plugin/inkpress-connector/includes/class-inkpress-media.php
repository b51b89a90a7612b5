<?php
/**
 * The article's images: taken as bytes inside the posts request (never a URL the site must
 * fetch), added to the Media Library with their alt text, once per article and image slot (a
 * re-published article finds its attachments again), the featured image set as the post
 * thumbnail, inline images placed as core/image blocks after their H2 sections, and og:image
 * printed for Inkpress posts when no SEO plugin does.
 *
 * @package InkpressConnector
 */

defined( 'ABSPATH' ) || exit;

/**
 * Media Library side of publishing.
 */
final class Inkpress_Media {

	/** Post meta of an attachment: `<article uuid>#<slot>`. */
	public const KEY_META = '_inkpress_image_key';

	private const MAX_IMAGES = 4;
	/** Bytes of one decoded image (Inkpress sends at most 200 KB). */
	private const MAX_BYTES = 2097152;
	private const MIMES     = array(
		'image/webp' => 'webp',
		'image/jpeg' => 'jpg',
	);

	/**
	 * Hooks.
	 */
	public static function init(): void {
		add_action( 'wp_head', array( __CLASS__, 'print_og_image' ), 2 );
	}

	/**
	 * The images of a posts request, checked: a list of array{slot, mime, alt, after_section, bytes}.
	 *
	 * @param array $body Request body.
	 * @return array|WP_Error
	 */
	public static function images_of( array $body ) {
		$raw = $body['images'] ?? array();
		if ( ! is_array( $raw ) || count( $raw ) > self::MAX_IMAGES || ( array() !== $raw && array_keys( $raw ) !== range( 0, count( $raw ) - 1 ) ) ) {
			return self::invalid( sprintf( /* translators: %d: most images. */ __( 'images must be a list of at most %d images.', 'inkpress-connector' ), self::MAX_IMAGES ) );
		}
		$images = array();
		$slots  = array();
		foreach ( $raw as $image ) {
			$slot = is_array( $image ) ? ( $image['slot'] ?? null ) : null;
			$mime = is_array( $image ) ? ( $image['mime_type'] ?? null ) : null;
			$alt  = is_array( $image ) ? ( $image['alt'] ?? '' ) : null;
			$data = is_array( $image ) ? ( $image['data'] ?? null ) : null;
			if ( ! is_string( $slot ) || ! preg_match( '/^(featured|inline-[1-3])$/', $slot ) || isset( $slots[ $slot ] ) ) {
				return self::invalid( __( 'Each image needs a distinct slot: featured or inline-1 to inline-3.', 'inkpress-connector' ) );
			}
			if ( ! is_string( $mime ) || ! isset( self::MIMES[ $mime ] ) || ! is_string( $alt ) || ! is_string( $data ) ) {
				return self::invalid( __( 'Each image needs mime_type image/webp or image/jpeg, an alt string and base64 data.', 'inkpress-connector' ) );
			}
			$bytes = base64_decode( $data, true );
			if ( false === $bytes || '' === $bytes || strlen( $bytes ) > self::MAX_BYTES || ! self::is_type( $bytes, $mime ) ) {
				return self::invalid( __( 'Each image must be base64 of a WebP or JPEG image of at most 2 MB.', 'inkpress-connector' ) );
			}
			$after = null;
			if ( 'featured' !== $slot ) {
				$after = $image['after_section'] ?? null;
				if ( ! is_int( $after ) || $after < 0 ) {
					return self::invalid( __( 'Each inline image needs after_section, a section index.', 'inkpress-connector' ) );
				}
			}
			$slots[ $slot ] = true;
			$images[]       = array(
				'slot'          => $slot,
				'mime'          => $mime,
				'alt'           => mb_substr( sanitize_text_field( $alt ), 0, 125 ),
				'after_section' => $after,
				'bytes'         => $bytes,
			);
		}
		return $images;
	}

	/**
	 * Whether the bytes are the image type they claim (by their first bytes).
	 *
	 * @param string $bytes Bytes.
	 * @param string $mime  Claimed type.
	 */
	private static function is_type( string $bytes, string $mime ): bool {
		if ( 'image/jpeg' === $mime ) {
			return "\xFF\xD8\xFF" === substr( $bytes, 0, 3 );
		}
		return 'RIFF' === substr( $bytes, 0, 4 ) && 'WEBP' === substr( $bytes, 8, 4 );
	}

	/**
	 * Validation error.
	 *
	 * @param string $message Message.
	 */
	private static function invalid( string $message ): WP_Error {
		return new WP_Error(
			'inkpress_invalid_images',
			$message,
			array(
				'status' => 400,
				'param'  => 'images',
			)
		);
	}

	/**
	 * Adds each image to the Media Library, or finds the attachment made for the same article and
	 * slot earlier (a retried or repeated publication): slot => attachment id.
	 *
	 * @param array  $images Images (images_of).
	 * @param string $uuid   Article uuid.
	 * @param string $title  Post title (names the files).
	 * @return array|WP_Error
	 */
	public static function attach( array $images, string $uuid, string $title ) {
		if ( array() === $images ) {
			return array();
		}
		require_once ABSPATH . 'wp-admin/includes/image.php';
		$ids = array();
		foreach ( $images as $image ) {
			$key      = $uuid . '#' . $image['slot'];
			$existing = self::attachment_for( $key );
			if ( null !== $existing ) {
				$ids[ $image['slot'] ] = $existing;
				continue;
			}
			$name = sanitize_file_name( sanitize_title( $title ) . '-' . $image['slot'] . '.' . self::MIMES[ $image['mime'] ] );
			$file = wp_upload_bits( $name, null, $image['bytes'] );
			if ( ! empty( $file['error'] ) ) {
				return new WP_Error( 'inkpress_image_failed', sprintf( /* translators: %s: the upload error. */ __( 'The image could not be saved: %s', 'inkpress-connector' ), $file['error'] ), array( 'status' => 500 ) );
			}
			$id = wp_insert_attachment(
				array(
					'post_mime_type' => $image['mime'],
					'post_title'     => '' !== $image['alt'] ? $image['alt'] : $title,
					'post_content'   => '',
					'post_status'    => 'inherit',
					'meta_input'     => array( self::KEY_META => $key ),
				),
				$file['file'],
				0,
				true
			);
			if ( is_wp_error( $id ) ) {
				wp_delete_file( $file['file'] );
				return new WP_Error( 'inkpress_image_failed', $id->get_error_message(), array( 'status' => 500 ) );
			}
			update_post_meta( $id, '_wp_attachment_image_alt', wp_slash( $image['alt'] ) );
			wp_update_attachment_metadata( $id, wp_generate_attachment_metadata( $id, $file['file'] ) );
			$ids[ $image['slot'] ] = (int) $id;
		}
		return $ids;
	}

	/**
	 * The attachment made earlier for an article's image slot.
	 *
	 * @param string $key `<uuid>#<slot>`.
	 */
	private static function attachment_for( string $key ): ?int {
		global $wpdb;
		$id = $wpdb->get_var(
			$wpdb->prepare(
				"SELECT pm.post_id FROM {$wpdb->postmeta} pm INNER JOIN {$wpdb->posts} p ON p.ID = pm.post_id
				 WHERE pm.meta_key = %s AND pm.meta_value = %s AND p.post_type = 'attachment' ORDER BY pm.post_id ASC LIMIT 1",
				self::KEY_META,
				$key
			)
		);
		return null === $id ? null : (int) $id;
	}

	/**
	 * The blocks with each inline image as a core/image block after its H2 section (the blocks up
	 * to the next H2, or the end).
	 *
	 * @param array $blocks Blocks (Inkpress_Blocks::post_blocks), sections from the first H2.
	 * @param array $images Images (images_of).
	 * @param array $ids    Slot => attachment id.
	 */
	public static function place_inline( array $blocks, array $images, array $ids ): array {
		$h2 = array();
		foreach ( $blocks as $index => $block ) {
			if ( 'core/heading' === ( $block['blockName'] ?? '' ) && 2 === (int) ( $block['attrs']['level'] ?? 2 ) ) {
				$h2[] = $index;
			}
		}
		$after = array();
		foreach ( $images as $image ) {
			if ( null === $image['after_section'] || ! isset( $ids[ $image['slot'] ], $h2[ $image['after_section'] ] ) ) {
				continue;
			}
			$at             = $h2[ $image['after_section'] + 1 ] ?? count( $blocks );
			$after[ $at ][] = self::image_block( $ids[ $image['slot'] ] );
		}
		krsort( $after );
		foreach ( $after as $at => $inserted ) {
			array_splice( $blocks, $at, 0, $inserted );
		}
		return $blocks;
	}

	/**
	 * A core/image block as the block editor saves it.
	 *
	 * @param int $id Attachment id.
	 */
	private static function image_block( int $id ): array {
		$src  = (string) wp_get_attachment_image_url( $id, 'large' );
		$alt  = (string) get_post_meta( $id, '_wp_attachment_image_alt', true );
		$html = '<figure class="wp-block-image size-large"><img src="' . esc_url( $src ) . '" alt="' . esc_attr( $alt ) . '" class="wp-image-' . $id . '"/></figure>';
		return array(
			'blockName'    => 'core/image',
			'attrs'        => array(
				'id'       => $id,
				'sizeSlug' => 'large',
			),
			'innerBlocks'  => array(),
			'innerHTML'    => $html,
			'innerContent' => array( $html ),
		);
	}

	/**
	 * After the post is written: the featured image as its thumbnail, and the attachments made
	 * children of the post.
	 *
	 * @param int   $post_id Post.
	 * @param array $ids     Slot => attachment id.
	 */
	public static function attach_to_post( int $post_id, array $ids ): void {
		if ( isset( $ids['featured'] ) ) {
			set_post_thumbnail( $post_id, $ids['featured'] );
		}
		foreach ( $ids as $id ) {
			if ( 0 === (int) wp_get_post_parent_id( $id ) ) {
				wp_update_post(
					array(
						'ID'          => $id,
						'post_parent' => $post_id,
					)
				);
			}
		}
	}

	/**
	 * What the site has of the post's images: featured_media_id, images_uploaded and media.
	 *
	 * @param int    $post_id Post.
	 * @param string $uuid    Article uuid.
	 */
	public static function readback( int $post_id, string $uuid ): array {
		global $wpdb;
		$rows  = $wpdb->get_results(
			$wpdb->prepare(
				"SELECT pm.post_id, pm.meta_value FROM {$wpdb->postmeta} pm INNER JOIN {$wpdb->posts} p ON p.ID = pm.post_id
				 WHERE pm.meta_key = %s AND pm.meta_value LIKE %s AND p.post_type = 'attachment' ORDER BY pm.post_id ASC",
				self::KEY_META,
				$wpdb->esc_like( $uuid . '#' ) . '%'
			)
		);
		$media = array();
		foreach ( (array) $rows as $row ) {
			$slot = substr( (string) $row->meta_value, strlen( $uuid ) + 1 );
			$url  = wp_get_attachment_url( (int) $row->post_id );
			if ( false !== $url && ! isset( $media[ $slot ] ) ) {
				$media[ $slot ] = array(
					'slot' => $slot,
					'id'   => (int) $row->post_id,
					'url'  => (string) $url,
				);
			}
		}
		$thumbnail = (int) get_post_thumbnail_id( $post_id );
		return array(
			'featured_media_id' => $thumbnail > 0 ? $thumbnail : null,
			'images_uploaded'   => count( $media ),
			'media'             => array_values( $media ),
		);
	}

	/**
	 * og:image for Inkpress posts with a featured image, when no SEO plugin prints Open Graph tags
	 * (Yoast SEO and Rank Math use the featured image for their own og:image).
	 */
	public static function print_og_image(): void {
		if ( 'inkpress' !== Inkpress_Seo::adapter() || ! is_singular() ) {
			return;
		}
		$post = get_queried_object();
		if ( ! $post instanceof WP_Post || ! Inkpress_Rest::is_inkpress_post( $post->ID ) ) {
			return;
		}
		$id = (int) get_post_thumbnail_id( $post->ID );
		if ( $id <= 0 ) {
			return;
		}
		$image = wp_get_attachment_image_src( $id, 'full' );
		if ( ! is_array( $image ) ) {
			return;
		}
		echo '<meta property="og:image" content="' . esc_url( $image[0] ) . '" />' . "\n";
		echo '<meta property="og:image:width" content="' . (int) $image[1] . '" />' . "\n";
		echo '<meta property="og:image:height" content="' . (int) $image[2] . '" />' . "\n";
		$alt = (string) get_post_meta( $id, '_wp_attachment_image_alt', true );
		if ( '' !== $alt ) {
			echo '<meta property="og:image:alt" content="' . esc_attr( $alt ) . '" />' . "\n";
		}
	}
}
