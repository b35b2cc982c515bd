//! Typed attribute reading over layers of attributes: default layers from the outermost to the innermost (MJCF's
//! default classes; none for URDF and SRDF), then the element itself.
//!
//! A plain attribute takes its value from the last layer that has it. A *partial* attribute (MuJoCo's `size`,
//! `friction`, `gainprm`, ...) may list fewer numbers than it has; each layer then overwrites only the leading ones,
//! exactly as MuJoCo copies a default class and reads the element's attributes over it.

use crate::element::{Attribute, Element};
use crate::error::{Result, XmlError};
use crate::location::Location;

/// The attributes an element sees: its default-class layers, then its own.
#[derive(Debug, Clone)]
pub struct Attrs<'a> {
    element: &'a str,
    at: &'a Location,
    layers: Vec<&'a [Attribute]>,
}

/// Splits a list of numbers; the error is a reason to report.
pub fn parse_numbers(text: &str) -> std::result::Result<Vec<f64>, String> {
    text.split_ascii_whitespace()
        .map(|t| match t.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            Ok(_) => Err(format!("`{t}` is not a finite number")),
            Err(_) => Err(format!("`{t}` is not a number")),
        })
        .collect()
}

impl<'a> Attrs<'a> {
    /// The attributes of `element` over the default layers `defaults` (outermost first).
    pub fn new(element: &'a Element, mut defaults: Vec<&'a [Attribute]>) -> Self {
        defaults.push(&element.attributes);
        Attrs { element: &element.name, at: &element.at, layers: defaults }
    }

    /// The element's own attributes only (no defaults).
    pub fn own(element: &'a Element) -> Self {
        Self::new(element, Vec::new())
    }

    /// The element name (for errors).
    pub fn element(&self) -> &'a str {
        self.element
    }

    /// The element's location.
    pub fn at(&self) -> &'a Location {
        self.at
    }

    /// The layers, outermost default first, the element's own attributes last.
    pub fn layers(&self) -> &[&'a [Attribute]] {
        &self.layers
    }

    /// The effective attribute `name` (the last layer that has it).
    pub fn get(&self, name: &str) -> Option<&'a Attribute> {
        self.layers.iter().rev().find_map(|l| l.iter().find(|a| a.name == name))
    }

    /// Whether attribute `name` is given in any layer.
    pub fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// The string value of `name`.
    pub fn str(&self, name: &str) -> Option<&'a str> {
        self.get(name).map(|a| a.value.as_str())
    }

    /// An [`XmlError::InvalidValue`] for attribute `a`.
    pub fn invalid(&self, a: &Attribute, reason: impl Into<String>) -> XmlError {
        XmlError::InvalidValue {
            at: a.at.clone(),
            element: self.element.to_string(),
            attribute: a.name.clone(),
            value: a.value.clone(),
            reason: reason.into(),
        }
    }

    /// An [`XmlError::InvalidValue`] for the effective attribute `name` (or an [`XmlError::Invalid`] on the
    /// element when it is not given).
    pub fn invalid_named(&self, name: &str, reason: impl Into<String>) -> XmlError {
        match self.get(name) {
            Some(a) => self.invalid(a, reason),
            None => XmlError::Invalid {
                at: self.at.clone(),
                element: self.element.to_string(),
                reason: format!("`{name}`: {}", reason.into()),
            },
        }
    }

    /// A [`XmlError::MissingAttribute`] for `name`.
    pub fn missing(&self, name: &str, reason: impl Into<String>) -> XmlError {
        XmlError::MissingAttribute {
            at: self.at.clone(),
            element: self.element.to_string(),
            attribute: name.to_string(),
            reason: reason.into(),
        }
    }

    /// A [`XmlError::NotSupported`] for attribute `name` (or the element when `name` is `None`).
    pub fn unsupported(&self, name: Option<&str>, what: impl Into<String>) -> XmlError {
        let at = name.and_then(|n| self.get(n)).map_or(self.at, |a| &a.at);
        XmlError::NotSupported {
            at: at.clone(),
            element: self.element.to_string(),
            attribute: name.map(str::to_string),
            what: what.into(),
        }
    }

    fn numbers_of(&self, a: &Attribute) -> Result<Vec<f64>> {
        parse_numbers(&a.value).map_err(|r| self.invalid(a, r))
    }

    /// All numbers of `name`, any count.
    pub fn numbers(&self, name: &str) -> Result<Option<Vec<f64>>> {
        self.get(name).map(|a| self.numbers_of(a)).transpose()
    }

    /// Exactly `N` numbers.
    pub fn array<const N: usize>(&self, name: &str) -> Result<Option<[f64; N]>> {
        let Some(a) = self.get(name) else {
            return Ok(None);
        };
        let v = self.numbers_of(a)?;
        <[f64; N]>::try_from(v.as_slice())
            .map(Some)
            .map_err(|_| self.invalid(a, format!("expected {N} numbers, got {}", v.len())))
    }

    /// Exactly `N` numbers, or `default`.
    pub fn array_or<const N: usize>(&self, name: &str, default: [f64; N]) -> Result<[f64; N]> {
        Ok(self.array(name)?.unwrap_or(default))
    }

    /// One number.
    pub fn f64(&self, name: &str) -> Result<Option<f64>> {
        Ok(self.array::<1>(name)?.map(|[v]| v))
    }

    /// One number, or `default`.
    pub fn f64_or(&self, name: &str, default: f64) -> Result<f64> {
        Ok(self.f64(name)?.unwrap_or(default))
    }

    /// Up to `N` numbers written over `default` layer by layer (at least one number per layer that has it).
    pub fn partial<const N: usize>(&self, name: &str, default: [f64; N]) -> Result<[f64; N]> {
        let mut out = default;
        for layer in &self.layers {
            if let Some(a) = layer.iter().find(|a| a.name == name) {
                let v = self.numbers_of(a)?;
                if v.is_empty() || v.len() > N {
                    return Err(self.invalid(a, format!("expected 1 to {N} numbers, got {}", v.len())));
                }
                out[..v.len()].copy_from_slice(&v);
            }
        }
        Ok(out)
    }

    /// How many numbers the last layer that has `name` gives (0 when absent).
    pub fn count(&self, name: &str) -> Result<usize> {
        Ok(self.numbers(name)?.map_or(0, |v| v.len()))
    }

    /// One integer.
    pub fn int(&self, name: &str) -> Result<Option<i64>> {
        self.get(name)
            .map(|a| a.value.trim().parse::<i64>().map_err(|_| self.invalid(a, "expected an integer")))
            .transpose()
    }

    /// One integer in `[lo, hi]`, or `default`.
    pub fn int_in(&self, name: &str, default: i64, lo: i64, hi: i64) -> Result<i64> {
        match self.int(name)? {
            None => Ok(default),
            Some(v) if (lo..=hi).contains(&v) => Ok(v),
            Some(_) => Err(self.invalid_named(name, format!("must be in [{lo}, {hi}]"))),
        }
    }

    /// A keyword among `choices` (`(keyword, value)`).
    pub fn keyword<T: Copy>(&self, name: &str, choices: &[(&str, T)]) -> Result<Option<T>> {
        let Some(a) = self.get(name) else {
            return Ok(None);
        };
        let v = a.value.trim();
        choices.iter().find(|(k, _)| *k == v).map(|(_, t)| Some(*t)).ok_or_else(|| {
            let list: Vec<&str> = choices.iter().map(|(k, _)| *k).collect();
            self.invalid(a, format!("expected one of: {}", list.join(", ")))
        })
    }

    /// `true` / `false`.
    pub fn bool(&self, name: &str) -> Result<Option<bool>> {
        self.keyword(name, &[("true", true), ("false", false)])
    }

    /// `true` / `false`, or `default`.
    pub fn bool_or(&self, name: &str, default: bool) -> Result<bool> {
        Ok(self.bool(name)?.unwrap_or(default))
    }

    /// A non-negative number, or `default`.
    pub fn nonneg_or(&self, name: &str, default: f64) -> Result<f64> {
        let v = self.f64_or(name, default)?;
        if v < 0.0 {
            return Err(self.invalid_named(name, "must be >= 0"));
        }
        Ok(v)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::element::parse;

    #[test]
    fn partial_attributes_overwrite_leading_numbers_layer_by_layer() {
        let root = parse("<d>\n<geom friction=\"0.5 0.1\"/>\n<geom friction=\"0.7\"/>\n</d>", Path::new("f"))
            .unwrap();
        let (default, own) = (&root.children[0], &root.children[1]);
        let a = Attrs::new(own, vec![&default.attributes]);
        assert_eq!(a.partial::<3>("friction", [1.0, 0.005, 0.0001]).unwrap(), [0.7, 0.1, 0.0001]);
        assert_eq!(a.f64("friction").unwrap(), Some(0.7));
    }

    #[test]
    fn bad_values_name_the_attribute_and_its_line() {
        let root = parse("<d>\n<g size=\"1 x\"\n  type=\"cube\"/>\n</d>", Path::new("f")).unwrap();
        let a = Attrs::own(&root.children[0]);
        let e = a.array::<2>("size").unwrap_err();
        assert_eq!((e.line(), e.attribute()), (Some(2), Some("size")));
        let e = a.keyword("type", &[("box", 0), ("sphere", 1)]).unwrap_err();
        assert_eq!(e.to_string(), "f:3: <g type=\"cube\">: expected one of: box, sphere");
        assert!(matches!(a.invalid_named("pos", "must be finite"), XmlError::Invalid { .. }));
    }
}
