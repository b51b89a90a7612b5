<?php
/**
 * The FAQPage of an Inkpress post as a piece of Yoast SEO's schema graph (filter
 * `wpseo_schema_graph_pieces`). Loaded only when Yoast SEO asks for pieces; it extends Yoast's
 * Abstract_Schema_Piece when that class exists and otherwise has the same shape.
 *
 * @package InkpressConnector
 */

defined( 'ABSPATH' ) || exit;

if ( class_exists( 'Yoast\WP\SEO\Generators\Schema\Abstract_Schema_Piece' ) ) {
	/** Base class of the piece: Yoast's own. */
	abstract class Inkpress_Yoast_Piece_Base extends Yoast\WP\SEO\Generators\Schema\Abstract_Schema_Piece {}
} else {
	/** Base class of the piece where Yoast's class is not there (older Yoast SEO). */
	abstract class Inkpress_Yoast_Piece_Base {
		/**
		 * Yoast's context.
		 *
		 * @var mixed
		 */
		public $context;

		/**
		 * Yoast's helpers.
		 *
		 * @var mixed
		 */
		public $helpers;
	}
}

/**
 * FAQPage piece.
 */
final class Inkpress_Yoast_Faq_Piece extends Inkpress_Yoast_Piece_Base {

	/**
	 * Identifier Yoast keys pieces by.
	 *
	 * @var string
	 */
	public $identifier = 'inkpress_faq';

	/**
	 * The FAQPage node.
	 *
	 * @var array|null
	 */
	private $node;

	/**
	 * Piece.
	 *
	 * @param mixed      $context Yoast's context.
	 * @param array|null $node    FAQPage node.
	 */
	public function __construct( $context, ?array $node ) {
		$this->context = $context;
		$this->node    = $node;
	}

	/**
	 * Whether the page gets the piece.
	 */
	public function is_needed() {
		return null !== $this->node;
	}

	/**
	 * The node.
	 */
	public function generate() {
		return $this->node;
	}
}
