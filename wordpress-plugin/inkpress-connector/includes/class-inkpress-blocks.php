<?php
/**
 * Builds native blocks (core/heading, core/paragraph, core/list, core/quote, core/table) from
 * the structured post Inkpress sends, and serialises them with serialize_blocks(). The markup
 * of each block is what the current block library saves (headings and lists carry the
 * `wp-block-heading` and `wp-block-list` classes it adds), so the editor opens the post with no
 * "unexpected or invalid content" warning and no block needing a deprecation; WordPress 6.1, which
 * saved them without those classes, reads each as an extra class name of the block and accepts
 * it too. Anything unexpected becomes a paragraph, never a Classic (freeform) block.
 *
 * @package InkpressConnector
 */

defined( 'ABSPATH' ) || exit;

/**
 * Block builder.
 */
final class Inkpress_Blocks {

	/** Inline elements kept inside a paragraph, heading, list item or cell. */
	private const INLINE = array( 'a', 'em', 'strong', 'b', 'i', 'br', 'code', 'sub', 'sup', 's', 'span', 'mark', 'abbr', 'small' );

	/**
	 * The whole post: introduction, the sections (an H2 each), then the FAQ (an H2, an H3 and a
	 * paragraph per question).
	 *
	 * @param string     $intro_html Introduction HTML.
	 * @param array      $sections   List of array{heading: string, html: string}.
	 * @param array|null $faq        array{heading: string, items: list of array{question, answer}} or null.
	 * @param array|null $sources    array{heading: string, items: list of array{title, url: ?string}} or null:
	 *                               the sources section, after the FAQ (an H2 and a list; a null url is text alone).
	 * @return array Parsed-block arrays, ready for serialize_blocks().
	 */
	public static function post_blocks( string $intro_html, array $sections, ?array $faq, ?array $sources = null ): array {
		$blocks = self::html_blocks( $intro_html );
		foreach ( $sections as $section ) {
			$blocks[] = self::heading( self::text( $section['heading'] ), 2 );
			$blocks   = array_merge( $blocks, self::html_blocks( $section['html'] ) );
		}
		if ( null !== $faq && array() !== $faq['items'] ) {
			$blocks[] = self::heading( self::text( $faq['heading'] ), 2 );
			foreach ( $faq['items'] as $item ) {
				$blocks[] = self::heading( self::text( $item['question'] ), 3 );
				$blocks[] = self::paragraph( self::text( $item['answer'] ) );
			}
		}
		if ( null !== $sources && array() !== $sources['items'] ) {
			$blocks[] = self::heading( self::text( $sources['heading'] ), 2 );
			$items    = array();
			foreach ( $sources['items'] as $item ) {
				$title   = self::text( $item['title'] );
				$items[] = self::block(
					'core/list-item',
					array(),
					'<li>' . ( null === $item['url'] ? $title : '<a href="' . esc_url( $item['url'] ) . '">' . $title . '</a>' ) . '</li>'
				);
			}
			$blocks[] = self::container( 'core/list', array(), '<ul class="wp-block-list">', $items, '</ul>' );
		}
		return $blocks;
	}

	/**
	 * Serialised post content: one block after another, a blank line between them.
	 *
	 * @param array $blocks Blocks.
	 */
	public static function serialize( array $blocks ): string {
		return implode( "\n\n", array_map( 'serialize_block', $blocks ) );
	}

	/**
	 * Blocks of an HTML fragment: its top-level elements one by one; runs of text and inline
	 * elements become paragraphs.
	 *
	 * @param string $html HTML.
	 */
	public static function html_blocks( string $html ): array {
		if ( '' === trim( $html ) ) {
			return array();
		}
		$root = self::parse( $html );
		return null === $root ? self::fallback_blocks( $html ) : self::children_blocks( $root );
	}

	/**
	 * Without PHP's DOM extension: a paragraph or heading per paragraph, heading and list item,
	 * keeping their inline markup (lists and tables lose their structure, nothing is lost).
	 *
	 * @param string $html HTML.
	 */
	private static function fallback_blocks( string $html ): array {
		$inline = array_fill_keys( self::INLINE, array( 'href' => true ) );
		$blocks = array();
		preg_match_all( '#<(p|h[1-6]|li|td|th|blockquote)(?:\s[^>]*)?>(.*?)</\1>#is', $html, $matches, PREG_SET_ORDER );
		foreach ( $matches as $match ) {
			$content = trim( wp_kses( $match[2], $inline ) );
			if ( '' === trim( wp_strip_all_tags( $content ) ) ) {
				continue;
			}
			$tag      = strtolower( $match[1] );
			$blocks[] = 'h' === $tag[0] ? self::heading( $content, max( 3, (int) substr( $tag, 1 ) ) ) : self::paragraph( $content );
		}
		if ( array() === $blocks && '' !== trim( wp_strip_all_tags( $html ) ) ) {
			$blocks[] = self::paragraph( self::text( trim( wp_strip_all_tags( $html ) ) ) );
		}
		return $blocks;
	}

	/**
	 * Parses an HTML fragment (UTF-8) into a DOM element holding it.
	 *
	 * @param string $html HTML.
	 */
	private static function parse( string $html ): ?DOMElement {
		if ( ! class_exists( 'DOMDocument' ) ) {
			return null;
		}
		$document = new DOMDocument( '1.0', 'UTF-8' );
		$previous = libxml_use_internal_errors( true );
		$loaded   = $document->loadHTML(
			'<!DOCTYPE html><html><head><meta http-equiv="Content-Type" content="text/html; charset=utf-8"></head><body><div id="inkpress-root">' . $html . '</div></body></html>',
			LIBXML_NONET
		);
		libxml_clear_errors();
		libxml_use_internal_errors( $previous );
		if ( ! $loaded ) {
			return null;
		}
		$root = $document->getElementById( 'inkpress-root' );
		return $root instanceof DOMElement ? $root : null;
	}

	/**
	 * Blocks of the children of an element.
	 *
	 * @param DOMNode $parent Parent.
	 */
	private static function children_blocks( DOMNode $parent ): array {
		$blocks = array();
		$inline = '';
		$flush  = static function () use ( &$blocks, &$inline ) {
			if ( '' !== trim( wp_strip_all_tags( $inline ) ) ) {
				$blocks[] = self::paragraph( trim( $inline ) );
			}
			$inline = '';
		};
		foreach ( iterator_to_array( $parent->childNodes ) as $node ) {
			if ( $node instanceof DOMText ) {
				$inline .= self::text( $node->textContent );
				continue;
			}
			if ( ! $node instanceof DOMElement ) {
				continue; // Comments, processing instructions.
			}
			$tag = strtolower( $node->nodeName );
			if ( in_array( $tag, self::INLINE, true ) ) {
				$inline .= self::outer_html( $node );
				continue;
			}
			$flush();
			$blocks = array_merge( $blocks, self::element_blocks( $node, $tag ) );
		}
		$flush();
		return $blocks;
	}

	/**
	 * Blocks of one block-level element.
	 *
	 * @param DOMElement $node Element.
	 * @param string     $tag  Lower-case tag name.
	 */
	private static function element_blocks( DOMElement $node, string $tag ): array {
		switch ( $tag ) {
			case 'p':
				$content = trim( self::inline_html( $node ) );
				return '' === trim( wp_strip_all_tags( $content ) ) ? array() : array( self::paragraph( $content ) );
			case 'h1':
			case 'h2':
			case 'h3':
			case 'h4':
			case 'h5':
			case 'h6':
				// H2 are the sections' own: a heading inside a section is at least an H3.
				$content = trim( self::inline_html( $node ) );
				return '' === $content ? array() : array( self::heading( $content, max( 3, (int) substr( $tag, 1 ) ) ) );
			case 'ul':
			case 'ol':
				$list = self::list_block( $node, 'ol' === $tag );
				return null === $list ? array() : array( $list );
			case 'blockquote':
				return array( self::quote( $node ) );
			case 'table':
				$table = self::table( $node );
				return null === $table ? array() : array( $table );
			default:
				// div, section, figure and anything else: what it holds.
				return self::children_blocks( $node );
		}
	}

	/**
	 * Plain text as HTML text (only &, < and > escaped, as the editor saves text).
	 *
	 * @param string $text Text.
	 */
	public static function text( string $text ): string {
		return htmlspecialchars( $text, ENT_NOQUOTES | ENT_SUBSTITUTE, 'UTF-8' );
	}

	/**
	 * A core/paragraph.
	 *
	 * @param string $content Inline HTML.
	 */
	private static function paragraph( string $content ): array {
		return self::block( 'core/paragraph', array(), '<p>' . $content . '</p>' );
	}

	/**
	 * A core/heading (level 2 is the block's default, so it has no attribute).
	 *
	 * @param string $content Inline HTML.
	 * @param int    $level   2-6.
	 */
	private static function heading( string $content, int $level ): array {
		$level = min( 6, max( 2, $level ) );
		return self::block( 'core/heading', 2 === $level ? array() : array( 'level' => $level ), "<h{$level} class=\"wp-block-heading\">{$content}</h{$level}>" );
	}

	/**
	 * A core/list with a core/list-item per item (nested lists inside their item).
	 *
	 * @param DOMElement $node    ul or ol.
	 * @param bool       $ordered Whether it is an ol.
	 */
	private static function list_block( DOMElement $node, bool $ordered ): ?array {
		$items = array();
		foreach ( iterator_to_array( $node->childNodes ) as $child ) {
			if ( $child instanceof DOMElement && 'li' === strtolower( $child->nodeName ) ) {
				$items[] = self::list_item( $child );
			} elseif ( '' !== trim( $child->textContent ) ) {
				$items[] = self::block( 'core/list-item', array(), '<li>' . self::text( trim( $child->textContent ) ) . '</li>' );
			}
		}
		if ( array() === $items ) {
			return null;
		}
		$tag = $ordered ? 'ol' : 'ul';
		return self::container( 'core/list', $ordered ? array( 'ordered' => true ) : array(), "<{$tag} class=\"wp-block-list\">", $items, "</{$tag}>" );
	}

	/**
	 * A core/list-item: its text, then its nested lists as inner blocks.
	 *
	 * @param DOMElement $item li.
	 */
	private static function list_item( DOMElement $item ): array {
		$content = '';
		$nested  = array();
		foreach ( iterator_to_array( $item->childNodes ) as $child ) {
			if ( $child instanceof DOMElement && in_array( strtolower( $child->nodeName ), array( 'ul', 'ol' ), true ) ) {
				$list = self::list_block( $child, 'ol' === strtolower( $child->nodeName ) );
				if ( null !== $list ) {
					$nested[] = $list;
				}
			} elseif ( $child instanceof DOMElement && ! in_array( strtolower( $child->nodeName ), self::INLINE, true ) ) {
				$content .= ( '' === trim( $content ) ? '' : ' ' ) . trim( self::inline_html( $child ) );
			} else {
				$content .= $child instanceof DOMText ? self::text( $child->textContent ) : self::outer_html( $child );
			}
		}
		return self::container( 'core/list-item', array(), '<li>' . trim( $content ), $nested, '</li>' );
	}

	/**
	 * A core/quote holding its paragraphs (and lists) as inner blocks.
	 *
	 * @param DOMElement $node blockquote.
	 */
	private static function quote( DOMElement $node ): array {
		$inner = array_values(
			array_filter(
				self::children_blocks( $node ),
				static function ( $block ) {
					return in_array( $block['blockName'], array( 'core/paragraph', 'core/list', 'core/heading' ), true );
				}
			)
		);
		if ( array() === $inner ) {
			$inner = array( self::paragraph( self::text( trim( $node->textContent ) ) ) );
		}
		return self::container( 'core/quote', array(), '<blockquote class="wp-block-quote">', $inner, '</blockquote>' );
	}

	/**
	 * A core/table: head, body and foot rows with their cells' inline HTML.
	 *
	 * @param DOMElement $node table.
	 */
	private static function table( DOMElement $node ): ?array {
		$sections = array(
			'thead' => array(),
			'tbody' => array(),
			'tfoot' => array(),
		);
		foreach ( $node->getElementsByTagName( 'tr' ) as $row ) {
			$parent  = $row->parentNode instanceof DOMElement ? strtolower( $row->parentNode->nodeName ) : 'tbody';
			$section = isset( $sections[ $parent ] ) ? $parent : 'tbody';
			$cells   = '';
			foreach ( iterator_to_array( $row->childNodes ) as $cell ) {
				if ( $cell instanceof DOMElement && in_array( strtolower( $cell->nodeName ), array( 'td', 'th' ), true ) ) {
					$tag    = strtolower( $cell->nodeName );
					$cells .= "<{$tag}>" . trim( self::inline_html( $cell ) ) . "</{$tag}>";
				}
			}
			if ( '' !== $cells ) {
				$sections[ $section ][] = '<tr>' . $cells . '</tr>';
			}
		}
		if ( array() === $sections['thead'] && array() === $sections['tbody'] && array() === $sections['tfoot'] ) {
			return null;
		}
		$html = '';
		foreach ( $sections as $tag => $rows ) {
			if ( array() !== $rows ) {
				$html .= "<{$tag}>" . implode( '', $rows ) . "</{$tag}>";
			}
		}
		return self::block( 'core/table', array(), '<figure class="wp-block-table"><table>' . $html . '</table></figure>' );
	}

	/**
	 * Inline HTML of an element's children: inline elements kept, block elements reduced to
	 * their inline content.
	 *
	 * @param DOMNode $node Element.
	 */
	private static function inline_html( DOMNode $node ): string {
		$html = '';
		foreach ( iterator_to_array( $node->childNodes ) as $child ) {
			if ( $child instanceof DOMText ) {
				$html .= self::text( $child->textContent );
			} elseif ( $child instanceof DOMElement ) {
				$html .= in_array( strtolower( $child->nodeName ), self::INLINE, true )
					? self::outer_html( $child )
					: ' ' . self::inline_html( $child ) . ' ';
			}
		}
		return preg_replace( '/\s+/u', ' ', $html );
	}

	/**
	 * HTML of an inline element as the document holds it.
	 *
	 * @param DOMNode $node Node.
	 */
	private static function outer_html( DOMNode $node ): string {
		return (string) $node->ownerDocument->saveHTML( $node );
	}

	/**
	 * A leaf block.
	 *
	 * @param string $name  Block name.
	 * @param array  $attrs Comment attributes.
	 * @param string $html  Inner HTML.
	 */
	private static function block( string $name, array $attrs, string $html ): array {
		return array(
			'blockName'    => $name,
			'attrs'        => $attrs,
			'innerBlocks'  => array(),
			'innerHTML'    => $html,
			'innerContent' => array( $html ),
		);
	}

	/**
	 * A block with inner blocks between its opening and closing markup.
	 *
	 * @param string $name   Block name.
	 * @param array  $attrs  Comment attributes.
	 * @param string $open   Opening markup.
	 * @param array  $inner  Inner blocks.
	 * @param string $close  Closing markup.
	 */
	private static function container( string $name, array $attrs, string $open, array $inner, string $close ): array {
		$content = array( $open );
		foreach ( $inner as $unused ) {
			$content[] = null;
		}
		$content[] = $close;
		return array(
			'blockName'    => $name,
			'attrs'        => $attrs,
			'innerBlocks'  => $inner,
			'innerHTML'    => $open . $close,
			'innerContent' => $content,
		);
	}

	/**
	 * Counts of the top-level blocks of stored content, and of Classic (freeform) ones among them:
	 * a null block name with anything but whitespace.
	 *
	 * @param string $content Post content.
	 * @return array{blocks: int, freeform: int}
	 */
	public static function count( string $content ): array {
		$blocks   = 0;
		$freeform = 0;
		foreach ( parse_blocks( $content ) as $block ) {
			if ( null === $block['blockName'] ) {
				if ( '' !== trim( $block['innerHTML'] ) ) {
					++$freeform;
				}
				continue;
			}
			++$blocks;
			if ( 'core/freeform' === $block['blockName'] ) {
				++$freeform;
			}
		}
		return array(
			'blocks'   => $blocks,
			'freeform' => $freeform,
		);
	}
}
